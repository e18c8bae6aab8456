package api

import _ "embed"

// OpenAPI is the OpenAPI 3 description of the JSON API, served at PathOpenAPI. A test in
// web checks it against the route table: every JSON route is in it, and every request field
// it documents is one the handler accepts.
//
//go:embed openapi.json
var OpenAPI []byte

// PathOpenAPI is where the server serves OpenAPI.
const PathOpenAPI = "/api/v1/openapi.json"
