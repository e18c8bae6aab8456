package views

import (
	"net/url"
	"strconv"
)

// NodeURL is the page of node id.
func NodeURL(id int64) string { return "/nodes/" + strconv.FormatInt(id, 10) }

// GpuURL is the page of the GPU with uuid.
func GpuURL(uuid string) string { return "/gpus/" + url.PathEscape(uuid) }

// BoardURL is the compact board, filtered to pool when one is named.
func BoardURL(pool string) string {
	if pool == "" {
		return "/?view=grid"
	}
	return "/?view=grid&pool=" + url.QueryEscape(pool)
}
