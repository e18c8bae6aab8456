package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/api"
)

// DecodeJSON reads one JSON value of at most maxBytes into v, rejecting unknown fields and
// trailing data with a 4xx that says what is wrong.
func DecodeJSON(c echo.Context, maxBytes int64, v any) error {
	body, err := ReadJSON(c, maxBytes)
	if err != nil {
		return err
	}
	return DecodeBody(body, maxBytes, v)
}

// ReadJSON reads a JSON body of at most maxBytes, for decodeBody (a body decoded twice:
// over a template's fields, say).
func ReadJSON(c echo.Context, maxBytes int64) ([]byte, error) {
	if ct := c.Request().Header.Get(echo.HeaderContentType); ct != "" && !strings.HasPrefix(ct, echo.MIMEApplicationJSON) {
		return nil, echo.NewHTTPError(http.StatusUnsupportedMediaType, api.Error{Error: "content type must be application/json"})
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, maxBytes))
	if err != nil {
		return nil, jsonError(err, maxBytes)
	}
	return body, nil
}

// DecodeBody decodes body as decodeJSON does; fields the body does not name keep v's values.
func DecodeBody(body []byte, maxBytes int64, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err, maxBytes)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return BadRequest("", "body must hold a single JSON value")
	}
	if field, problem, bad := badText(body); bad {
		if field == "" {
			return BadRequest("", "body "+problem)
		}
		return BadRequest(field, field+" "+problem)
	}
	return nil
}

// jsonError turns a decoding error into a 4xx naming the field where it can.
func jsonError(err error, maxBytes int64) error {
	var (
		syntax  *json.SyntaxError
		typeErr *json.UnmarshalTypeError
		tooBig  *http.MaxBytesError
	)
	switch {
	case errors.As(err, &tooBig):
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge, api.Error{Error: fmt.Sprintf("body is larger than %d bytes", maxBytes)})
	case errors.As(err, &syntax):
		return BadRequest("", fmt.Sprintf("malformed JSON at byte %d", syntax.Offset))
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return BadRequest("", "body must be a JSON object, not "+typeErr.Value)
	case errors.As(err, &typeErr):
		return BadRequest(typeErr.Field, fmt.Sprintf("%s must be %s, not %s", typeErr.Field, typeErr.Type, typeErr.Value))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return BadRequest("", "body is empty or cut short")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return BadRequest(field, "unknown field "+field)
	default:
		return BadRequest("", "invalid JSON: "+err.Error())
	}
}
