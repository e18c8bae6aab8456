package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"kashi/handlers"
	"kashi/static"
)

// routes is the whole URL surface of Kashi, grouped by area.
func routes(e *echo.Echo, h *handlers.Handler) {
	// Operations.
	e.GET("/healthz", h.Healthz)
	e.GET("/metrics", echo.WrapHandler(promhttp.Handler()))
	e.GET("/static/*", echo.WrapHandler(http.StripPrefix("/static/", staticFiles())))

	// Pages.
	e.GET("/", h.Board)
	e.GET("/lang", h.LangSet)

	// JSON API.
	api := e.Group("/api/v1")
	api.GET("/gpus", h.GPUsList)
	api.GET("/tasks", h.TaskList)
	api.POST("/tasks", h.TaskCreate)
	api.GET("/tasks/:id", h.TaskShow)
	api.POST("/tasks/:id/cancel", h.TaskCancel)
	api.POST("/tasks/:id/ready", h.TaskReady)

	// Agent API: the join token registers, the node's own token does the rest.
	api.POST("/agent/register", h.AgentRegister)
	agent := api.Group("/agent", h.NodeAuth)
	agent.POST("/samples", h.AgentSamples)
	agent.GET("/assignments", h.AgentAssignments)
	agent.POST("/tasks/:id/status", h.AgentTaskStatus)
}

// staticFiles serves the embedded assets; their URLs carry a content hash, so they may be
// cached for a year.
func staticFiles() http.Handler {
	fs := http.FileServerFS(static.FS)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("v") != "" {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		}
		fs.ServeHTTP(w, r)
	})
}
