// Package datacheck validates and runs the data checks tasks declare (数据就绪度): a path
// that must exist under one of the configured data roots, or a URL that must answer 2xx and
// may not point into the server's own network unless an admin allows its host. A task whose
// check passes joins the queue.
package datacheck
