package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
)

// openAPI serves the JSON API's OpenAPI description. GET /api/v1/openapi.json.
func openAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, api.OpenAPI)
}
