package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Trial is a task run at small sizes on one or several specs for a bounded time before its
// full run (小规模验证再放大): one run per spec and size, each a task of its own whose TrialID
// names the trial, billed as the trial class. Specs and Sizes are JSON lists.
type Trial struct {
	ID        int64
	ProjectID int64
	Owner     string
	Name      string
	Specs     string
	Sizes     string
	// BoundS is how long each run may take (its max runtime).
	BoundS int64
	// WorkUnits is the full run's output, in the unit its runs report (0 when not given);
	// FullGPUs the cards the full run would take.
	WorkUnits int64
	FullGPUs  int `gorm:"column:full_gpus"`
	CreatedAt time.Time
	// FullTaskID is the full run submitted from the trial, by FullBy; nil until then.
	FullTaskID *int64
	FullBy     string
}

// SpecList is the trial's specs.
func (t Trial) SpecList() []string {
	var out []string
	json.Unmarshal([]byte(t.Specs), &out) // written by the store
	return out
}

// SizeList is the trial's sizes (cards per run), smallest first.
func (t Trial) SizeList() []int {
	var out []int
	json.Unmarshal([]byte(t.Sizes), &out) // written by the store
	return out
}

// Bounds of a trial, checked where it is written.
const (
	MaxTrialSpecs = 4
	MaxTrialSizes = 4
	// MaxTrialGPUs is the most cards one run of a trial may take: a trial is small.
	MaxTrialGPUs    = 16
	MinTrialBound   = 5 * time.Minute
	MaxTrialBound   = 4 * time.Hour
	MaxTrialFullGPU = 4096
)

// NewTrial is a trial as asked: the task to try (its Spec, Specs, GPUs and MaxRuntime are
// the trial's to set), the specs and sizes to run it at, the time bound of each run, and the
// full run's output and cards when known.
type NewTrial struct {
	Task      NewTask
	Specs     []string
	Sizes     []int
	Bound     time.Duration
	WorkUnits int64
	FullGPUs  int
}

// checkTrial names every bad field of nt's own.
func checkTrial(p *Problems, nt *NewTrial) {
	specs := slices.Clone(nt.Specs)
	switch {
	case len(specs) == 0 || len(specs) > MaxTrialSpecs:
		p.Add(fieldErr("specs", "give 1 to %d specs, got %d", MaxTrialSpecs, len(specs)))
	default:
		for _, s := range specs {
			if err := checkName("specs", s, 100); err != nil {
				p.Add(err)
				break
			}
		}
		if len(slices.Compact(slices.Sorted(slices.Values(specs)))) != len(specs) {
			p.Add(fieldErr("specs", "a spec is named twice"))
		}
	}
	sizes := slices.Sorted(slices.Values(nt.Sizes))
	switch {
	case len(sizes) == 0 || len(sizes) > MaxTrialSizes:
		p.Add(fieldErr("sizes", "give 1 to %d sizes, got %d", MaxTrialSizes, len(sizes)))
	case sizes[0] < 1 || sizes[len(sizes)-1] > MaxTrialGPUs:
		p.Add(fieldErr("sizes", "each size must be between %d and %d cards", 1, MaxTrialGPUs))
	case len(slices.Compact(slices.Clone(sizes))) != len(sizes):
		p.Add(fieldErr("sizes", "a size is named twice"))
	}
	nt.Sizes = sizes
	if nt.Bound < MinTrialBound || nt.Bound > MaxTrialBound {
		p.Add(fieldErr("bound_s", "must be between %d and %d, got %d", int64(MinTrialBound/time.Second),
			int64(MaxTrialBound/time.Second), int64(nt.Bound/time.Second)))
	}
	p.Add(checkRange("work_units", nt.WorkUnits, 0, MaxOutputUnits))
	p.Add(checkRange("full_gpus", int64(nt.FullGPUs), 0, MaxTrialFullGPU))
	if nt.Task.Kind != "" && nt.Task.Kind != TaskKindBatch {
		p.Add(fieldErr("kind", "a trial runs a batch task, not a service"))
	}
}

// trialRun is the task nt runs at spec on gpus cards: its own name, the trial's bound, one
// attempt, the short lane when the bound fits it.
func trialRun(nt NewTrial, spec string, gpus int, lim TaskLimits) NewTask {
	r := nt.Task
	r.Spec, r.Specs, r.GPUs, r.MaxRuntime = spec, nil, gpus, nt.Bound
	r.Name = fmt.Sprintf("%s · trial %d × %s", truncate(r.Name, 150), gpus, spec)
	r.EstGPUHours = float64(gpus) * nt.Bound.Hours()
	r.MaxAttempts, r.RerunOnFailure, r.Deferrable = 1, false, false
	r.IdempotencyKey, r.IdempotencyScope = "", ""
	r.Queue = QueueLong
	if lim.ShortMaxRuntime >= nt.Bound {
		r.Queue = QueueShort
	}
	return r
}

// CreateTrial validates and stores a trial and its runs, one task per spec and size, in one
// transaction: every run is checked as any submit is (project, quota, spec, cards), and a
// bad field of any is named, as the trial's own are, so nothing is stored.
func (s *Store) CreateTrial(ctx context.Context, nt NewTrial, lim TaskLimits, now time.Time) (Trial, []Task, error) {
	now = UTC(now)
	var p Problems
	checkTrial(&p, &nt)
	if err := p.Err(); err != nil {
		return Trial{}, nil, err
	}
	var (
		tr   Trial
		runs []Task
	)
	err := s.db.WithContext(quiet(ctx)).Transaction(func(tx *gorm.DB) error {
		runs = nil
		specs, _ := json.Marshal(nt.Specs)
		sizes, _ := json.Marshal(nt.Sizes)
		tr = Trial{Owner: nt.Task.Owner, Name: nt.Task.Name, Specs: string(specs), Sizes: string(sizes),
			BoundS: int64(nt.Bound / time.Second), WorkUnits: nt.WorkUnits, FullGPUs: nt.FullGPUs, CreatedAt: now}
		reads := newSubmitReads(tx)
		for _, spec := range nt.Specs {
			for _, gpus := range nt.Sizes {
				var t Task
				if err := s.taskFromNew(reads, trialRun(nt, spec, gpus, lim), lim, now, &t); err != nil {
					return err
				}
				runs = append(runs, t)
			}
		}
		tr.ProjectID = runs[0].ProjectID
		if err := tx.Create(&tr).Error; err != nil {
			return err
		}
		for i := range runs {
			runs[i].TrialID = &tr.ID
			if err := tx.Create(&runs[i]).Error; err != nil {
				return err
			}
			ev := TaskEvent{TaskID: runs[i].ID, At: now, To: runs[i].State, Reason: "submitted by " + tr.Owner}
			if err := tx.Create(&ev).Error; err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return Trial{}, nil, err
		}
		return Trial{}, nil, fmt.Errorf("models: create trial: %w", err)
	}
	return tr, runs, nil
}

// TrialByID returns one trial.
func (s *Store) TrialByID(ctx context.Context, id int64) (Trial, error) {
	var t Trial
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&t).Error; err != nil {
		return t, notFound(fmt.Sprintf("trial %d", id), err)
	}
	return t, nil
}

// TrialRuns returns the runs of trial id, by spec as the trial names them, then size.
func (s *Store) TrialRuns(ctx context.Context, id int64) ([]TaskRow, error) {
	var out []TaskRow
	err := s.db.WithContext(ctx).Table("tasks").Select("tasks.*, projects.name AS project").
		Joins("JOIN projects ON projects.id = tasks.project_id").Where("tasks.trial_id = ?", id).
		Order("tasks.id").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: runs of trial %d: %w", id, err)
	}
	return out, nil
}

// Trials returns the latest trials of the projects named by ids (every project's when ids
// is nil), newest first, at most limit (1–200).
func (s *Store) Trials(ctx context.Context, ids []int64, limit int) ([]Trial, error) {
	limit = min(max(limit, 1), 200)
	q := s.db.WithContext(ctx).Order("id DESC").Limit(limit)
	if ids != nil {
		q = q.Where("project_id IN ?", append(ids, 0))
	}
	var out []Trial
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: trials: %w", err)
	}
	return out, nil
}

// FullRun is the full run a person submits from a trial: the spec and cards it takes and its
// estimate, and who submits it.
type FullRun struct {
	Spec        string
	GPUs        int
	EstGPUHours float64
	// MaxRuntime 0 takes the lane's limit.
	MaxRuntime time.Duration
	By         string
}

// SubmitTrialFull submits trial id's full run: its first run's task (command, environment,
// image, data, lane's priority) at fr's spec and cards, through the same checks as any
// submit, in one transaction that records it as the trial's. A trial has one full run: a
// second submit is ErrConflict, whichever comes first.
func (s *Store) SubmitTrialFull(ctx context.Context, id int64, fr FullRun, lim TaskLimits, now time.Time) (Task, error) {
	now = UTC(now)
	var t Task
	err := s.db.WithContext(quiet(ctx)).Transaction(func(tx *gorm.DB) error {
		var tr Trial
		if err := tx.Where("id = ?", id).Take(&tr).Error; err != nil {
			return notFound(fmt.Sprintf("trial %d", id), err)
		}
		if tr.FullTaskID != nil {
			return fmt.Errorf("trial %d already submitted its full run, task %d: %w", id, *tr.FullTaskID, ErrConflict)
		}
		var base TaskRow
		err := tx.Table("tasks").Select("tasks.*, projects.name AS project").
			Joins("JOIN projects ON projects.id = tasks.project_id").
			Where("tasks.trial_id = ?", id).Order("tasks.id").Take(&base).Error
		if err != nil {
			return notFound(fmt.Sprintf("runs of trial %d", id), err)
		}
		nt, err := s.resubmitOf(base, tr.Name)
		if err != nil {
			return err
		}
		nt.Spec, nt.GPUs, nt.EstGPUHours, nt.MaxRuntime, nt.Owner = fr.Spec, fr.GPUs, fr.EstGPUHours, fr.MaxRuntime, fr.By
		nt.Queue = QueueLong
		if fr.MaxRuntime > 0 && fr.MaxRuntime <= lim.ShortMaxRuntime {
			nt.Queue = QueueShort
		}
		if err := s.taskFromNew(newSubmitReads(tx), nt, lim, now, &t); err != nil {
			return err
		}
		if err := tx.Create(&t).Error; err != nil {
			return err
		}
		ev := TaskEvent{TaskID: t.ID, At: now, To: t.State, Reason: "submitted by " + fr.By}
		if err := tx.Create(&ev).Error; err != nil {
			return err
		}
		res := tx.Model(&Trial{}).Where("id = ? AND full_task_id IS NULL", id).
			Updates(map[string]any{"full_task_id": t.ID, "full_by": fr.By})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return fmt.Errorf("trial %d already submitted its full run: %w", id, ErrConflict)
		}
		return nil
	})
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) || errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
			return Task{}, err
		}
		return Task{}, fmt.Errorf("models: submit full run of trial %d: %w", id, err)
	}
	return t, nil
}

// resubmitOf is task t submitted again as name: its project, lane's priority, command,
// environment (its secret values opened, to be sealed again), working directory, image,
// data check and locations, attempts; its data ready when it checks none.
func (s *Store) resubmitOf(t TaskRow, name string) (NewTask, error) {
	nt := NewTask{Project: t.Project, Name: name, Owner: t.Owner, Priority: t.Priority, Workdir: t.Workdir,
		Image: t.Image, MaxAttempts: DefaultMaxAttempts, Kind: TaskKindBatch}
	if err := json.Unmarshal([]byte(t.Command), &nt.Command); err != nil {
		return NewTask{}, fmt.Errorf("command of task %d: %w", t.ID, err)
	}
	if t.Env != "" {
		env, err := s.openEnv(t.Env)
		if err != nil {
			return NewTask{}, fmt.Errorf("environment of task %d: %w", t.ID, err)
		}
		var stored map[string]string
		json.Unmarshal([]byte(t.Env), &stored) // openEnv read it
		for k, v := range stored {
			if strings.HasPrefix(v, sealedPrefix) {
				nt.SecretEnv = append(nt.SecretEnv, k)
			}
		}
		slices.Sort(nt.SecretEnv)
		nt.Env = env
	}
	if t.DataCheck != "" {
		if err := json.Unmarshal([]byte(t.DataCheck), &nt.DataCheck); err != nil {
			return NewTask{}, fmt.Errorf("data check of task %d: %w", t.ID, err)
		}
	}
	nt.DataReady = nt.DataCheck == DataCheck{}
	if t.DataLocations != "" {
		if err := json.Unmarshal([]byte(t.DataLocations), &nt.DataLocations); err != nil {
			return NewTask{}, fmt.Errorf("data locations of task %d: %w", t.ID, err)
		}
	}
	if t.TemplateID != nil {
		nt.TemplateID, nt.TemplateVersion = *t.TemplateID, t.TemplateVersion
	}
	return nt, nil
}

// TaskResubmit is task id submitted again: resubmitOf, under its own name.
func (s *Store) TaskResubmit(ctx context.Context, id int64) (NewTask, error) {
	var t TaskRow
	err := s.db.WithContext(ctx).Table("tasks").Select("tasks.*, projects.name AS project").
		Joins("JOIN projects ON projects.id = tasks.project_id").Where("tasks.id = ?", id).Take(&t).Error
	if err != nil {
		return NewTask{}, notFound(fmt.Sprintf("task %d", id), err)
	}
	name := t.Name
	if t.TrialID != nil { // a trial's run: the task it tried
		var tr Trial
		if err := s.db.WithContext(ctx).Where("id = ?", *t.TrialID).Take(&tr).Error; err == nil {
			name = tr.Name
		}
	}
	nt, err := s.resubmitOf(t, name)
	if err != nil {
		return NewTask{}, fmt.Errorf("models: resubmit task %d: %w", id, err)
	}
	return nt, nil
}
