package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// AgentAssignments lists what the authenticated node should run, after recording the tasks
// the node says run (?running=1,2). With ?wait=30s it is a long poll: while the list's ETag
// is the one the agent sent in If-None-Match, it waits for a change to the node's
// assignments (a placement, a stop, a reclaim; see models.WaitAssignments) up to the wait,
// and then answers the list as it stands. One request per node waits: a later one ends the
// earlier, which answers at once. GET /api/v1/agent/assignments.
//
// A request that waits leaves the server's handling of requests: its connection is taken
// over (hijacked) and answered by a goroutine of its own when the wait ends, then closed
// (the agent's next request opens another). Waiting in the handler held, for each of
// thousands of agents, a deep goroutine stack, the connection's buffers, a goroutine reading
// the connection and the request: about 30 KB an agent (docs/decisions.md, "Long polls
// waiting off the server's connections"). Where the connection cannot be taken over (a test's
// recorder, HTTP/2) the handler waits itself, in the same loop.
func (h *Handler) AgentAssignments(c echo.Context) error {
	running, err := runningOf(c.QueryParam(api.QueryRunning))
	if err != nil {
		return handlers.APIError(http.StatusBadRequest, err)
	}
	wait, err := waitOf(c.QueryParam(api.QueryWait))
	if err != nil {
		return handlers.APIError(http.StatusBadRequest, err)
	}
	ctx, node := c.Request().Context(), agentNode(c).ID
	if err := h.store.ConfirmRunning(ctx, node, running, h.Now()); err != nil {
		return err
	}
	if wait == 0 {
		body, tag, err := h.assignments(ctx, node)
		if err != nil {
			return err
		}
		return answerAssignments(c, body, tag)
	}
	hdr := c.Response().Header()
	hdr.Set(api.HeaderAssignmentsWait, wait.String())
	p := &longPoll{h: h, node: node, known: c.Request().Header.Get("If-None-Match"), hdr: hdr}
	// The wait is registered before the read, so that a change committed after the read
	// wakes it.
	w, err := h.store.WaitAssignments(ctx, node)
	if err != nil {
		return err
	}
	body, tag, err := h.assignments(ctx, node)
	if err != nil || tag != p.known {
		w.Stop()
		if err != nil {
			return err
		}
		if err := h.changedAt(ctx, hdr, node); err != nil {
			return err
		}
		return answerAssignments(c, body, tag)
	}
	p.deadline = time.NewTimer(wait)
	if conn, _, err := http.NewResponseController(c.Response().Writer).Hijack(); err == nil {
		p.hdr = hdr.Clone() // the response's own header is the server's again
		go p.answerOn(conn, w, body, tag)
		return nil
	}
	defer p.deadline.Stop()
	body, tag, err = p.waitChange(ctx, w, body, tag, func() func() error { return handlers.Park(c) })
	if err != nil {
		return err
	}
	return answerAssignments(c, body, tag)
}

// longPoll is one request waiting for its node's assignments to change.
type longPoll struct {
	h        *Handler
	node     int64
	known    string      // the ETag the agent has
	hdr      http.Header // the answer's header so far
	deadline *time.Timer // the end of the wait
}

// waitChange waits on w until the node's list (body, tag as last read) differs from the
// agent's, the wait is ended (another request of the node, the server stopping) or its
// deadline passes, or ctx ends; it returns the list to answer. park, when set, is called
// before each wait and what it returns after it (handlers.Park: a handler that waits takes
// no place of the requests served at once).
func (p *longPoll) waitChange(ctx context.Context, w *models.AssignmentWait, body []byte, tag string,
	park func() func() error) ([]byte, string, error) {
	for {
		var unpark func() error
		if park != nil {
			unpark = park()
		}
		ended := false
		select {
		case <-w.C:
			ended = w.Ended()
		case <-p.deadline.C:
			w.Stop()
			ended = true
		case <-ctx.Done():
			w.Stop()
		}
		if unpark != nil {
			if err := unpark(); err != nil {
				return nil, "", err
			}
		}
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		if ended {
			return body, tag, nil
		}
		var err error
		if w, err = p.h.store.WaitAssignments(ctx, p.node); err != nil {
			return nil, "", err
		}
		if body, tag, err = p.h.assignments(ctx, p.node); err != nil || tag != p.known {
			w.Stop()
			if err == nil {
				err = p.h.changedAt(ctx, p.hdr, p.node)
			}
			return body, tag, err
		}
	}
}

// answerWrite bounds the write of a taken-over request's answer: an agent that stopped
// reading does not hold its goroutine.
const answerWrite = 10 * time.Second

// answerOn waits for the change on a connection taken over from the server, then writes the
// answer on it and closes it. The agent may have gone meanwhile: the write then fails, and
// the connection is closed all the same. A failed read of the list answers 503, which the
// agent retries.
func (p *longPoll) answerOn(conn net.Conn, w *models.AssignmentWait, body []byte, tag string) {
	defer conn.Close()
	defer p.deadline.Stop()
	body, tag, err := p.waitChange(context.Background(), w, body, tag, nil)
	res := &http.Response{StatusCode: http.StatusOK, ProtoMajor: 1, ProtoMinor: 1, Header: p.hdr, Close: true}
	if err != nil {
		slog.Warn("assignments long poll", "node", p.node, "err", err)
		res.StatusCode = http.StatusServiceUnavailable
		body, _ = json.Marshal(api.Error{Error: "the assignments could not be read; ask again"})
	} else {
		p.hdr.Set("ETag", tag)
	}
	p.hdr.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	p.hdr.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	_ = conn.SetWriteDeadline(time.Now().Add(answerWrite))
	_ = res.Write(conn) // a write that fails finds an agent gone: it asks again when it is back
}

// assignments reads the node's assignments as the answer's body and its ETag.
func (h *Handler) assignments(ctx context.Context, node int64) ([]byte, string, error) {
	tasks, err := h.store.Assignments(ctx, node)
	if err != nil {
		return nil, "", err
	}
	body, err := json.Marshal(assignmentsOf(tasks))
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(body)
	return body, `"` + hex.EncodeToString(sum[:12]) + `"`, nil
}

// changedAt says in the answer's header when the node's assignments last changed.
func (h *Handler) changedAt(ctx context.Context, hdr http.Header, node int64) error {
	at, err := h.store.AssignmentsChangedAt(ctx, node)
	if err != nil || at.IsZero() {
		return err
	}
	hdr.Set(api.HeaderAssignmentsChanged, at.Format(time.RFC3339Nano))
	return nil
}

// answerAssignments writes the list with its ETag.
func answerAssignments(c echo.Context, body []byte, tag string) error {
	c.Response().Header().Set("ETag", tag)
	return c.JSONBlob(http.StatusOK, body)
}
