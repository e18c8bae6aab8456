package loadgen

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func validConfig() Config {
	return Config{Server: "http://127.0.0.1:8080", Agents: 4, GPUsPerAgent: 8, Viewers: 1, SubmitRate: 1,
		Duration: time.Second, SampleEvery: time.Second, PollEvery: time.Second, ViewEvery: time.Second, Timeout: time.Second}
}

func TestValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(*Config)
		want   string // part of the error; "" for none
	}{
		"loopback v4":     {func(c *Config) {}, ""},
		"loopback v6":     {func(c *Config) { c.Server = "http://[::1]:9" }, ""},
		"localhost":       {func(c *Config) { c.Server = "http://localhost:9" }, ""},
		"other host":      {func(c *Config) { c.Server = "http://10.0.0.1:8080" }, "not on loopback"},
		"named host":      {func(c *Config) { c.Server = "https://kashi.example.com" }, "not on loopback"},
		"not a URL":       {func(c *Config) { c.Server = "127.0.0.1:8080" }, "not an http URL"},
		"too many agents": {func(c *Config) { c.Agents = MaxAgents + 1 }, "--agents"},
		"too long":        {func(c *Config) { c.Duration = MaxDuration + time.Second }, "--duration"},
		"too fast":        {func(c *Config) { c.SubmitRate = MaxSubmitRate + 1 }, "--submit-rate"},
		"no timeout":      {func(c *Config) { c.Timeout = 0 }, "--timeout"},
	} {
		t.Run(name, func(t *testing.T) {
			c := validConfig()
			tc.change(&c)
			err := c.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestReport(t *testing.T) {
	r := newRecorder()
	for i := 1; i <= 100; i++ {
		r.ok(KindIngest, time.Duration(i)*time.Millisecond)
	}
	r.fail(KindSubmit, "500 boom")
	r.busy(KindSubmit)
	r.retry(KindSubmit)
	rp := r.report(time.Second)
	want := map[string]KindReport{
		KindIngest: {OK: 100, P50: 50 * time.Millisecond, P99: 99 * time.Millisecond, Max: 100 * time.Millisecond},
		KindSubmit: {Errors: 1, Busy: 1, Retries: 1, FirstErrors: []string{"500 boom"}},
	}
	if diff := cmp.Diff(want, rp.Kinds); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if rp.Errors() != 1 || rp.Busy() != 1 {
		t.Errorf("Errors, Busy = %d, %d, want 1, 1", rp.Errors(), rp.Busy())
	}
}
