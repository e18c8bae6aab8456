package proof

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/api"
	"kashi/billing"
	"kashi/demo"
)

// witness reads a running demo as its people do: a browser session for each role that reads
// figures (admin, finance, a lead) and for those who ask for cards (agreeAskers), and the CLI
// with the admin's API token.
type witness struct {
	base     string
	sessions map[string]*http.Client // by demo login
	token    string                  // the admin's API token, for the CLI
	projects map[string]int64        // project ids by name
}

// newWitness logs in as admin, finance, lead and the askers and makes the admin an API token.
func newWitness(ctx context.Context, base string) (*witness, error) {
	w := &witness{base: base, sessions: map[string]*http.Client{}}
	for _, user := range append([]string{"admin", "finance", "lead"}, agreeAskers...) {
		c, err := login(base, user)
		if err != nil {
			return nil, err
		}
		w.sessions[user] = c
	}
	var tok struct {
		Token string `json:"token"`
	}
	if err := w.post(ctx, "admin", "/api/v1/tokens", map[string]string{"name": "agreement proof", "scope": "read"}, &tok); err != nil {
		return nil, fmt.Errorf("admin token: %w", err)
	}
	w.token = tok.Token
	var projects []struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	if err := w.getJSON(ctx, "admin", "/api/v1/projects", &projects); err != nil {
		return nil, err
	}
	w.projects = map[string]int64{}
	for _, p := range projects {
		w.projects[p.Name] = p.ID
	}
	return w, nil
}

// login signs user in through the login form and returns the session's client.
func login(base, user string) (*http.Client, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := c.Get(base + "/login")
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	form := url.Values{"username": {user}, "password": {demo.Password}, "_csrf": {csrfOf(c, base)}}
	if resp, err = c.PostForm(base+"/login", form); err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/" {
		return nil, fmt.Errorf("logging in as %s ended on %s", user, resp.Request.URL)
	}
	return c, nil
}

// csrfOf is the session's CSRF token, from its cookie.
func csrfOf(c *http.Client, base string) string {
	u, _ := url.Parse(base)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == "_csrf" {
			return ck.Value
		}
	}
	return ""
}

// get reads path as user and fails on any status but 200.
func (w *witness) get(ctx context.Context, user, path string) ([]byte, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, w.base+path, nil)
	resp, err := w.sessions[user].Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s as %s: %s: %.200s", path, user, resp.Status, body)
	}
	return body, err
}

func (w *witness) getJSON(ctx context.Context, user, path string, out any) error {
	body, err := w.get(ctx, user, path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// post sends body as JSON to path as user, with the session's CSRF token, and decodes the
// answer into out (when not nil); any status but 2xx is an error.
func (w *witness) post(ctx context.Context, user, path string, body, out any) error {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, w.base+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", csrfOf(w.sessions[user], w.base))
	resp, err := w.sessions[user].Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return &statusError{status: resp.StatusCode, msg: fmt.Sprintf("POST %s as %s: %s: %.300s", path, user, resp.Status, got)}
	}
	if out != nil {
		return json.Unmarshal(got, out)
	}
	return nil
}

type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string { return e.msg }

// cli runs the kashi CLI with the admin's token and decodes its JSON output.
func (w *witness) cli(ctx context.Context, out any, args ...string) error {
	cmd := exec.CommandContext(ctx, kashiBin, args...)
	cmd.Env = append(os.Environ(), "KASHI_SERVER="+w.base, "KASHI_TOKEN="+w.token, "KASHI_CONFIG_DIR="+os.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("kashi %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return json.Unmarshal(b, out)
}

// change makes reading i's change, as the people who make it would: a lead retags a
// project, an admin changes a price of this month and tries one of the issued month.
func (w *witness) change(ctx context.Context, i int) error {
	switch i % 2 {
	case 0:
		tags := []string{fmt.Sprintf("cc-%d", 100+i), "agree"}
		return w.post(ctx, "lead", fmt.Sprintf("/api/v1/projects/%d/tags", w.projects["vision"]), map[string][]string{"tags": tags}, nil)
	default:
		var at struct {
			Now time.Time `json:"now"`
		}
		if err := w.getJSON(ctx, "admin", "/api/v1/queue", &at); err != nil {
			return err
		}
		month := at.Now.UTC().Format("2006-01")
		price := map[string]any{"spec": "A100-80G", "from_month": month, "rate_fen": 1500 + 10*i}
		if err := w.post(ctx, "admin", "/api/v1/prices", price, nil); err != nil {
			return err
		}
		// A price from the issued month on: refused, or applied to what is not issued.
		price["from_month"] = at.Now.UTC().AddDate(0, -1, 0).Format("2006-01")
		var se *statusError
		if err := w.post(ctx, "admin", "/api/v1/prices", price, nil); err != nil && !(errors.As(err, &se) && se.status/100 == 4) {
			return err
		}
		return nil
	}
}

// instant is every figure read at one held instant of the demo's clock.
type instant struct {
	at      time.Time
	gpus    []api.GPU
	cliGPUs []api.GPU
	metrics map[string]float64 // sample lines of /metrics by name and labels
	queue   api.Queue
	holding []api.Task                // the tasks that hold cards: starting and running
	board   map[string]map[string]int // the board's pool summaries: counts by pool and class
	quotas  []projectQuotas           // /api/v1/projects as admin
	month   string
	bills   []billing.Bill // this month's bills, from the API
	csv     map[string][]byte
	xlsx    map[string][]byte
	// quotaReading is the pages' quota in use, booked cards and dry runs (readQuotas).
	quotaReading quotaReading
	// reports are the weekly reports, the bills of their months, the weekly messages and
	// the services' hours (readReports), read once the instant is steady.
	reports reportsReading
}

// steadyInstant reads every figure until two readings in a row agree on everything that
// moves (the cards, the tasks, the queue): the clock is held, but a sample or a tick already
// under way may still land. It reports the reading and how many it took.
func (w *witness) steadyInstant(ctx context.Context) (instant, int, error) {
	prev, err := w.read(ctx)
	if err != nil {
		return prev, 1, err
	}
	for tries := 2; tries <= 20; tries++ {
		time.Sleep(100 * time.Millisecond)
		next, err := w.read(ctx)
		if err != nil {
			return next, tries, err
		}
		if reflect.DeepEqual(prev.moving(), next.moving()) {
			return next, tries, nil
		}
		prev = next
	}
	return prev, 20, errors.New("the figures kept moving with the clock held: 20 readings")
}

// moving is what may still change right after the clock is held: each card's state and
// holder (in the API, on the board and in /metrics), the queue, the running tasks and the
// card-hours this month's bills hold. (Utilization and memory are noise the simulated
// GPUs add to every sample, held clock or not.)
func (in instant) moving() any {
	type card struct {
		uuid  string
		state api.GPUState
		task  int64
	}
	cards := make([]card, len(in.gpus))
	for i, g := range in.gpus {
		cards[i] = card{g.UUID, g.State, 0}
		if g.TaskID != nil {
			cards[i].task = *g.TaskID
		}
	}
	var waiting, running []int64
	for _, t := range in.queue.Tasks {
		waiting = append(waiting, t.ID)
	}
	for _, t := range in.holding {
		running = append(running, t.ID)
	}
	held := map[string]int64{}
	for _, b := range in.bills {
		held[b.Project] = b.NominalS
	}
	return []any{in.at, cards, waiting, in.queue.Capacity, running, queuedOn(in.metrics), in.board, cardStates(in.metrics), held}
}

// steadyReading is a steady instant with its reports (readReports of the issued month
// past), read again afterwards: a node found lost, or an ended task's report that lands,
// while the reports are read closes allocations back in time, so the reports and the bills
// read before them would tell two instants apart. When anything moved meanwhile, it reads
// the whole instant again, up to 5 times. It reports the reading and the readings it took.
func (w *witness) steadyReading(ctx context.Context, past string) (instant, int, error) {
	total := 0
	for range 5 {
		in, tries, err := w.steadyInstant(ctx)
		total += tries
		if err == nil {
			err = w.readReports(ctx, &in, past)
		}
		if err != nil {
			return in, total, err
		}
		after, err := w.read(ctx)
		total++
		if err != nil {
			return in, total, err
		}
		if reflect.DeepEqual(in.moving(), after.moving()) {
			return in, total, nil
		}
	}
	return instant{}, total, errors.New("the figures moved while the reports were read, 5 times with the clock held")
}

// cardStates are /metrics' card counts by pool, spec and state (kashi_gpus): they move with
// the same samples as the API's cards, read a moment apart, so a steady reading holds them
// steady too, as it does the board's counts.
func cardStates(metrics map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range metrics {
		if strings.HasPrefix(k, "kashi_gpus{") {
			out[k] = v
		}
	}
	return out
}

// read reads every figure once.
func (w *witness) read(ctx context.Context) (instant, error) {
	var in instant
	if err := w.getJSON(ctx, "admin", "/api/v1/queue", &in.queue); err != nil {
		return in, err
	}
	in.at = in.queue.Now
	if err := w.getJSON(ctx, "admin", "/api/v1/gpus", &in.gpus); err != nil {
		return in, err
	}
	if err := w.cli(ctx, &in.cliGPUs, "gpus", "-o", "json"); err != nil {
		return in, err
	}
	for _, state := range []api.TaskState{api.StateStarting, api.StateRunning} {
		var tasks []api.Task
		if err := w.getJSON(ctx, "admin", "/api/v1/tasks?limit=1000&state="+string(state), &tasks); err != nil {
			return in, err
		}
		in.holding = append(in.holding, tasks...)
	}
	body, err := w.get(ctx, "admin", "/metrics")
	if err != nil {
		return in, err
	}
	in.metrics = parseMetrics(body)
	if body, err = w.get(ctx, "admin", "/"); err != nil {
		return in, err
	}
	if in.board, err = boardCounts(body); err != nil {
		return in, err
	}
	if err := w.getJSON(ctx, "admin", "/api/v1/projects", &in.quotas); err != nil {
		return in, err
	}
	in.month = in.at.UTC().Format("2006-01")
	var month struct {
		Bills []billing.Bill `json:"bills"`
	}
	if err := w.getJSON(ctx, "finance", "/api/v1/bills/"+in.month, &month); err != nil {
		return in, err
	}
	in.bills = month.Bills
	in.csv, in.xlsx = map[string][]byte{}, map[string][]byte{}
	for _, b := range in.bills {
		path := fmt.Sprintf("/api/v1/bills/%s/%s?format=", b.Project, in.month)
		if in.csv[b.Project], err = w.get(ctx, "finance", path+"csv"); err != nil {
			return in, err
		}
		if in.xlsx[b.Project], err = w.get(ctx, "finance", path+"xlsx"); err != nil {
			return in, err
		}
	}
	return in, w.readQuotas(ctx, &in)
}

// parseMetrics reads Prometheus' text format: value by `name{labels}` as written.
func parseMetrics(body []byte) map[string]float64 {
	out := map[string]float64{}
	for line := range strings.SplitSeq(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		var v float64
		if _, err := fmt.Sscan(line[i+1:], &v); err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

// queuedOn sums kashi_queue_tasks over the lanes of metrics, as parseMetrics reads them.
func queuedOn(metrics map[string]float64) float64 {
	n := 0.0
	for k, v := range metrics {
		if strings.HasPrefix(k, "kashi_queue_tasks{") {
			n += v
		}
	}
	return n
}

// boardCounts reads the board's pool summaries: total, busy, idle, free and stale cards by
// pool (stale absent when none).
func boardCounts(body []byte) (map[string]map[string]int, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]int{}
	doc.Find(`[data-testid=pool-summary]`).Each(func(_ int, s *goquery.Selection) {
		pool, _ := s.Attr("data-pool")
		counts := map[string]int{}
		for _, class := range []string{"total", "busy", "idle", "free", "stale"} {
			text := strings.ReplaceAll(strings.TrimSpace(s.Find(".c-"+class+" dd").Text()), ",", "")
			if text == "" {
				continue
			}
			var n int
			fmt.Sscan(text, &n)
			counts[class] = n
		}
		out[pool] = counts
	})
	if len(out) == 0 {
		return nil, errors.New("the board shows no pool summary")
	}
	return out, nil
}

// projectQuotas is a project's quotas as /api/v1/projects lists them.
type projectQuotas struct {
	Name   string `json:"name"`
	Quotas []struct {
		Spec          string  `json:"spec"`
		MaxGPUs       int     `json:"max_gpus"`
		UsedCardHours float64 `json:"used_card_hours"`
		InUseGPUs     int     `json:"in_use_gpus"`
		LimitGPUs     int     `json:"limit_gpus"`
	} `json:"quotas"`
}
