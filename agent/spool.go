package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"kashi/api"
)

// spoolEntry is one thing to send, in order: a batch of samples or one task status.
type spoolEntry struct {
	seq     int64
	Samples []api.Sample `json:"samples,omitempty"`
	// Logs and the service replicas' scrapes go with the samples of the same tick.
	Logs    []api.TaskLog       `json:"logs,omitempty"`
	Serving []api.ServingReport `json:"serving,omitempty"`
	// TaskID and Status are set on a status entry.
	TaskID int64                  `json:"task_id,omitempty"`
	Status *api.TaskStatusRequest `json:"status,omitempty"`
}

// spool keeps what the server has not yet acknowledged, in order, one file per entry under
// dir (so a killed agent loses nothing), mirrored in memory. It holds at most maxSamples
// samples: past that the oldest sample batches are dropped and counted. Statuses are never
// dropped. With dir "" it lives in memory only (the demo).
type spool struct {
	dir        string
	maxSamples int
	entries    []spoolEntry
	samples    int
	nextSeq    int64
	// dropped counts the samples dropped since the server last heard of it; it is kept in
	// dir/dropped across restarts.
	dropped int64
}

const spoolDroppedFile = "dropped"

// openSpool reads the spool in dir, creating dir if needed.
func openSpool(dir string, maxSamples int) (*spool, error) {
	s := &spool{dir: dir, maxSamples: maxSamples, nextSeq: 1}
	if dir == "" {
		return s, nil
	}
	// The spool holds tasks' log lines: the agent's alone, also where an older agent made
	// it readable.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("agent: spool: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("agent: spool: %w", err)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("agent: spool: %w", err)
	}
	for _, name := range names {
		seq, err := strconv.ParseInt(strings.TrimSuffix(filepath.Base(name), ".json"), 10, 64)
		if err != nil {
			continue
		}
		var e spoolEntry
		if err := readJSON(dir, filepath.Base(name), &e); err != nil {
			os.Remove(name) // a torn write cannot happen (rename), so this is foreign: skip it
			continue
		}
		e.seq = seq
		s.entries = append(s.entries, e)
		s.samples += len(e.Samples)
		s.nextSeq = max(s.nextSeq, seq+1)
	}
	slices.SortFunc(s.entries, func(a, b spoolEntry) int { return int(a.seq - b.seq) })
	if b, err := os.ReadFile(filepath.Join(dir, spoolDroppedFile)); err == nil {
		s.dropped, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	return s, nil
}

// add appends an entry, then drops the oldest sample batches while over maxSamples. An entry
// whose file cannot be written (disk full) is still kept in memory, and the error returned.
func (s *spool) add(e spoolEntry) error {
	e.seq = s.nextSeq
	s.nextSeq++
	s.entries = append(s.entries, e)
	s.samples += len(e.Samples)
	var werr error
	if s.dir != "" {
		if err := writeJSON(s.dir, s.name(e), e); err != nil {
			werr = fmt.Errorf("agent: spool: %w", err)
		}
	}
	if err := s.trim(); err != nil {
		return err
	}
	return werr
}

// trim drops the oldest sample batches while over maxSamples, counting them.
func (s *spool) trim() error {
	dropped := int64(0)
	for i := 0; s.samples > s.maxSamples && i < len(s.entries); {
		if len(s.entries[i].Samples) == 0 {
			i++
			continue
		}
		dropped += int64(len(s.entries[i].Samples))
		if err := s.remove(i); err != nil {
			return err
		}
	}
	if dropped > 0 {
		return s.setDropped(s.dropped + dropped)
	}
	return nil
}

// name is an entry's file name.
func (s *spool) name(e spoolEntry) string { return strconv.FormatInt(e.seq, 10) + ".json" }

// remove deletes entry i.
func (s *spool) remove(i int) error {
	e := s.entries[i]
	if s.dir != "" {
		if err := os.Remove(filepath.Join(s.dir, s.name(e))); err != nil && !isNotExist(err) {
			return fmt.Errorf("agent: spool: %w", err)
		}
	}
	s.samples -= len(e.Samples)
	s.entries = slices.Delete(s.entries, i, i+1)
	return nil
}

// head returns the next thing to send: a status entry alone, or the leading sample batches
// (with their logs and scrapes) merged up to api.MaxSamplesPerBatch samples, 64 log pieces
// and api.MaxServingReports scrapes; n is the
// number of entries it covers (0 when empty).
func (s *spool) head() (e spoolEntry, n int) {
	if len(s.entries) == 0 {
		return spoolEntry{}, 0
	}
	if s.entries[0].Status != nil {
		return s.entries[0], 1
	}
	for _, x := range s.entries {
		if x.Status != nil || (n > 0 && (len(e.Samples)+len(x.Samples) > api.MaxSamplesPerBatch || len(e.Logs)+len(x.Logs) > 64 ||
			len(e.Serving)+len(x.Serving) > api.MaxServingReports)) {
			break
		}
		e.Samples = append(e.Samples, x.Samples...)
		e.Logs = append(e.Logs, x.Logs...)
		e.Serving = append(e.Serving, x.Serving...)
		n++
	}
	return e, n
}

// pop removes the first n entries, once the server has them.
func (s *spool) pop(n int) error {
	for range n {
		if err := s.remove(0); err != nil {
			return err
		}
	}
	return nil
}

// setDropped records the count of samples dropped and not yet reported.
func (s *spool) setDropped(n int64) error {
	s.dropped = n
	if s.dir == "" {
		return nil
	}
	if err := os.WriteFile(filepath.Join(s.dir, spoolDroppedFile), []byte(strconv.FormatInt(n, 10)), 0o600); err != nil {
		return fmt.Errorf("agent: spool: %w", err)
	}
	return nil
}
