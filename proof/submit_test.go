package proof

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"kashi/agent/simgpu"
	"kashi/models"
)

// submitter submits tasks through the API the way a careful script does: each task has an
// Idempotency-Key, and a submit without a 2xx answer (the server died, refused, timed out) is
// sent again with the same key until one comes, whichever server answers.
type submitter struct {
	token string
	// addrs are the servers to spread submits over; a retry goes to the next one.
	addrs []string
	rng   *rand.Rand

	mu sync.Mutex
	// sent is every key with its body and, once a server took it, the task id it answered.
	sent    map[string]*submit
	order   []string
	refused []string // a 4xx answer: a bug in the server or the proof
	n       int
	// shortRuns makes tasks run 2 to 8 seconds, for servers on the real clock; otherwise
	// they run 2 to 40 minutes of the demo's fast clock.
	shortRuns bool
	// projects and specs are where tasks go: to projects[i], on specs[i] (a spec its quota
	// covers), i drawn at random.
	projects, specs []string
}

// submit is one task as the submitter sent it.
type submit struct {
	body taskBody
	id   int64
	// run is how long the task's process runs, in clock time (the demo's agents follow it).
	run time.Duration
}

// taskBody is the task JSON the submitter posts.
type taskBody struct {
	Project     string   `json:"project"`
	Name        string   `json:"name"`
	Owner       string   `json:"owner"`
	GPUs        int      `json:"gpus"`
	Spec        string   `json:"spec"`
	Queue       string   `json:"queue"`
	Priority    string   `json:"priority"`
	MaxRuntimeS int64    `json:"max_runtime_s"`
	Command     []string `json:"command"`
	DataReady   bool     `json:"data_ready"`
}

// submitOwner is the user the proofs submit as: in the demo, a member of vision and nlp
// (see demo.Seed).
const submitOwner = "alice"

// newToken makes an API token for submitOwner through the store, once the demo seeded it.
func newToken(ctx context.Context, t *testing.T, db database) string {
	t.Helper()
	s, err := models.Open(ctx, db.DSN, models.Options{})
	if err != nil {
		t.Fatalf("open the store for a token: %v", err)
	}
	defer s.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		u, err := s.UserByName(ctx, submitOwner)
		if err == nil {
			tok, _, err := s.CreateAPIToken(ctx, u.ID, "proof submitter", models.ScopeWrite, time.Now())
			if err != nil {
				t.Fatalf("token: %v", err)
			}
			return tok
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo did not seed %s: %v", submitOwner, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func newSubmitter(token string, addrs []string, seed uint64) *submitter {
	return &submitter{token: token, addrs: addrs, rng: rand.New(rand.NewPCG(seed, 7)), sent: make(map[string]*submit),
		projects: []string{"vision", "nlp"}, specs: []string{"A100-80G", "RTX4090-24G"}}
}

// run submits one new task every gap and retries the unanswered ones until ctx ends.
func (s *submitter) run(ctx context.Context, gap time.Duration) {
	client := &http.Client{Timeout: 5 * time.Second}
	for sleepCtx(ctx, gap) {
		s.retry(ctx, client)
		s.send(ctx, client, s.next())
	}
}

// next draws a new task of 1 to 8 cards, one in ten exiting 1.
func (s *submitter) next() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	key := fmt.Sprintf("proof-%06d", s.n)
	run := time.Duration(2+s.rng.IntN(39)) * time.Minute
	if s.shortRuns {
		run = time.Duration(2+s.rng.IntN(7)) * time.Second
	}
	exit := 0
	if s.rng.IntN(10) == 0 {
		exit = 1
	}
	place := s.rng.IntN(len(s.projects))
	body := taskBody{Project: s.projects[place], Name: key, Owner: submitOwner,
		GPUs: []int{1, 1, 2, 4, 8}[s.rng.IntN(5)], Spec: s.specs[place], Queue: models.QueueShort, Priority: models.PriorityNormal,
		MaxRuntimeS: 7200, Command: simgpu.Command(simgpu.Train, run, exit), DataReady: true}
	s.sent[key] = &submit{body: body, run: run}
	s.order = append(s.order, key)
	return key
}

// retry sends again every key not yet answered.
func (s *submitter) retry(ctx context.Context, client *http.Client) {
	for _, key := range s.pending() {
		if ctx.Err() != nil {
			return
		}
		s.send(ctx, client, key)
	}
}

// pending lists the keys no server has answered yet.
func (s *submitter) pending() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, k := range s.order {
		if s.sent[k].id == 0 {
			out = append(out, k)
		}
	}
	return out
}

// send posts the task under key to one of the servers and records the answer.
func (s *submitter) send(ctx context.Context, client *http.Client, key string) {
	s.mu.Lock()
	body := s.sent[key].body
	addr := s.addrs[s.rng.IntN(len(s.addrs))]
	s.mu.Unlock()
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/api/v1/tasks", bytes.NewReader(b))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Idempotency-Key", key)
	resp, err := client.Do(req)
	if err != nil {
		return // the server is away: send it again later
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case resp.StatusCode/100 == 2:
		var out struct {
			ID int64 `json:"id"`
		}
		if json.Unmarshal(msg, &out) != nil || out.ID == 0 {
			s.refused = append(s.refused, fmt.Sprintf("%s: %s: %s (no id)", key, resp.Status, msg))
			return
		}
		if prev := s.sent[key].id; prev != 0 && prev != out.ID {
			s.refused = append(s.refused, fmt.Sprintf("%s: answered task %d, before %d", key, out.ID, prev))
		}
		s.sent[key].id = out.ID
	case resp.StatusCode/100 == 4 && resp.StatusCode != http.StatusTooManyRequests:
		s.refused = append(s.refused, fmt.Sprintf("%s: %s: %s", key, resp.Status, bytes.TrimSpace(msg)))
		s.sent[key].id = -1 // not sent again
	}
}

// drain retries the unanswered keys until none is left or timeout passes.
func (s *submitter) drain(ctx context.Context, timeout time.Duration) []string {
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if len(s.pending()) == 0 {
			return nil
		}
		s.retry(ctx, client)
		sleepCtx(ctx, 100*time.Millisecond)
	}
	return s.pending()
}
