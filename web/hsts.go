package web

import "github.com/labstack/echo/v4"

// hstsMaxAge is how long browsers keep to https for Kashi's host: one year.
const hstsMaxAge = "max-age=31536000"

// hsts tells browsers to reach Kashi over https only. It is used when the public URL is
// https, on every answer, since a proxy in front may end TLS and talk plain HTTP to Kashi.
func hsts(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set(echo.HeaderStrictTransportSecurity, hstsMaxAge)
		return next(c)
	}
}
