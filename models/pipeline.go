package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"gorm.io/gorm"
)

// Pipelines by stage (规格混用): a pipeline is a named DAG of stages, each an inline task or
// a template's, with its own spec, cards, image, estimate and data locations. A stage is
// submitted as an ordinary task (the same validation, quota and queue) only once its parents
// are done, so it holds no card while it waits; a failure skips the stages downstream of it;
// a rerun starts again from the stages that did not succeed.

// Pipeline states.
const (
	PipelineRunning   = "running"
	PipelineSucceeded = "succeeded"
	PipelineFailed    = "failed"
	// PipelineCancelled: cancelled while it ran (see CancelPipeline); it is not rerun.
	PipelineCancelled = "cancelled"
)

// Stage states: waiting for its parents, submitted (its task queues or runs), or ended.
const (
	StageWaiting   = "waiting"
	StageSubmitted = "submitted"
	StageSucceeded = "succeeded"
	StageFailed    = "failed"
	StageSkipped   = "skipped"
)

// MaxStages is the most stages a pipeline may have.
const MaxStages = 20

// stageName is what a stage may be called: it names environment variables and edges.
var stageName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// The environment a stage's task is given, besides its own (documented in docs/guide.md).
const (
	EnvPipeline    = "KASHI_PIPELINE"
	EnvStage       = "KASHI_PIPELINE_STAGE"
	EnvStageOutput = "KASHI_STAGE_OUTPUT"
	EnvStageInput  = "KASHI_STAGE_INPUT"
)

// Pipeline is one submitted pipeline. Run counts its runs: 1, one more for each rerun.
type Pipeline struct {
	ID          int64
	ProjectID   int64
	Name        string
	Owner       string
	State       string
	Reason      string
	Run         int
	SubmittedAt time.Time
	EndedAt     *time.Time
}

// PipelineStage is one stage of a pipeline. Position is its place in a topological order
// (parents first, else as submitted). After and AfterEnded are JSON lists of the stages it
// follows once they succeeded, and once they ended whatever the outcome. Body is the task
// it submits (NewTask, JSON, without project, owner and name). TaskID is its current run's
// task; nil while it waits or when it was skipped.
type PipelineStage struct {
	ID         int64
	PipelineID int64
	Name       string
	Position   int
	After      string
	AfterEnded string
	Output     string
	Body       string
	State      string
	Reason     string
	TaskID     *int64
}

// PipelineTask links a task to the stage and run that submitted it.
type PipelineTask struct {
	TaskID     int64 `gorm:"primaryKey;autoIncrement:false"`
	PipelineID int64
	StageID    int64
	Run        int
}

// Parents are the stages st follows once they succeeded, and once they ended.
func (st PipelineStage) Parents() (after, afterEnded []string) {
	json.Unmarshal([]byte(st.After), &after)           // written by the store; always decodes
	json.Unmarshal([]byte(st.AfterEnded), &afterEnded) // likewise
	return after, afterEnded
}

// Task is the task the stage submits, as declared.
func (st PipelineStage) Task() NewTask {
	var nt NewTask
	json.Unmarshal([]byte(st.Body), &nt) // written by the store; always decodes
	return nt
}

// Stage reasons are stored as a kind, a space and its argument, which pages word in their
// language:
// "parent NAME" (skipped: a parent it needs did not succeed), "task STATE" (its task ended
// STATE), "submit MESSAGE" (its task could not be submitted), "cancelled USER" (skipped:
// USER cancelled the pipeline before it was submitted). A cancelled pipeline's reason is
// "cancelled USER"; a failed one's "stage NAME".
const (
	StageWhyParent    = "parent"
	StageWhyTask      = "task"
	StageWhySubmit    = "submit"
	StageWhyCancelled = "cancelled"
)

// NewPipeline is a pipeline as submitted.
type NewPipeline struct {
	Project string
	Name    string
	Owner   string
	Stages  []NewStage
}

// NewStage is one stage as submitted: Task's project, owner and name are the pipeline's.
type NewStage struct {
	Name       string
	After      []string
	AfterEnded []string
	// Output is where the stage writes on shared storage: an absolute path or a URI. Its
	// children are told it, and wait for it to be visible (see stageTask).
	Output string
	Task   NewTask
}

// CreatePipeline validates and stores a pipeline and submits its first stages, in one
// transaction. Every bad field is named at once, a stage's as "stages[i].field".
func (s *Store) CreatePipeline(ctx context.Context, np NewPipeline, lim TaskLimits, now time.Time) (Pipeline, error) {
	var pipe Pipeline
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		pipe, err = s.createPipeline(tx, np, lim, now)
		return err
	})
	if err != nil {
		if AllFieldErrors(err) != nil {
			return Pipeline{}, err
		}
		return Pipeline{}, fmt.Errorf("models: create pipeline: %w", err)
	}
	return pipe, nil
}

// createPipeline is CreatePipeline within the caller's transaction.
func (s *Store) createPipeline(tx *gorm.DB, np NewPipeline, lim TaskLimits, now time.Time) (Pipeline, error) {
	now = UTC(now)
	project, order, err := s.checkPipeline(tx, np, lim, now)
	if err != nil {
		return Pipeline{}, err
	}
	pipe := Pipeline{ProjectID: project.ID, Name: np.Name, Owner: np.Owner, State: PipelineRunning, Run: 1, SubmittedAt: now}
	if err := tx.Create(&pipe).Error; err != nil {
		return Pipeline{}, err
	}
	for pos, i := range order {
		ns := np.Stages[i]
		nt := ns.Task
		nt.Project, nt.Owner, nt.Name = "", "", ""
		body, _ := json.Marshal(nt) // plain data; never fails
		st := PipelineStage{PipelineID: pipe.ID, Name: ns.Name, Position: pos, After: nameListJSON(ns.After),
			AfterEnded: nameListJSON(ns.AfterEnded), Output: ns.Output, Body: string(body), State: StageWaiting}
		if err := tx.Create(&st).Error; err != nil {
			return Pipeline{}, err
		}
	}
	return pipe, s.advance(tx, pipe, project.Name, lim, now)
}

func nameListJSON(names []string) string {
	if len(names) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(names) // strings; never fails
	return string(b)
}

// checkPipeline validates np: its project, name and owner, the graph of its stages (names,
// edges, no cycle) and each stage's task as it would be submitted. It returns the project
// and the stages' indexes in topological order.
func (s *Store) checkPipeline(tx *gorm.DB, np NewPipeline, lim TaskLimits, now time.Time) (Project, []int, error) {
	var p Problems
	project, err := projectToSubmit(tx, NewTask{Project: np.Project})
	if err := p.Add(err); err != nil {
		return Project{}, nil, err
	}
	p.Add(checkName("name", np.Name, 150))
	if strings.ContainsFunc(np.Name, unicode.IsControl) {
		p.Add(fieldErr("name", "must not contain control characters (tabs, newlines, escapes)"))
	}
	p.Add(checkName("owner", np.Owner, 100))
	order, err := checkStageGraph(np.Stages)
	p.Add(err)
	if project.ID == 0 || p.Has("owner") || p.Has("stages") {
		return Project{}, nil, p.Err()
	}
	outputs := map[string]string{}
	for _, ns := range np.Stages {
		outputs[ns.Name] = ns.Output
	}
	reads := newSubmitReads(tx)
	for i, ns := range np.Stages {
		field := fmt.Sprintf("stages[%d].", i)
		if ns.Output != "" && !validLocation(ns.Output) {
			p.Add(fieldErr(field+"output", "must be an absolute path or a URI such as s3://bucket/set, at most 1,024 bytes"))
		}
		if ns.Task.Kind != "" && ns.Task.Kind != TaskKindBatch {
			p.Add(fieldErr(field+"kind", "a pipeline's stages are batch tasks"))
			continue
		}
		if len(ns.Task.SecretEnv) > 0 {
			p.Add(fieldErr(field+"secret_env", "a pipeline's stages keep no secret variables"))
		}
		nt := s.stageTask(project.Name, np.Name, np.Owner, 0, ns.Name, ns.After, ns.AfterEnded, ns.Output, ns.Task, outputs)
		var scratch Task
		err := s.taskFromNew(reads, nt, lim, now, &scratch)
		for _, fe := range AllFieldErrors(err) {
			c := *fe
			c.Field = field + c.Field
			p.Add(&c)
		}
		if AllFieldErrors(err) == nil && err != nil {
			return Project{}, nil, err
		}
	}
	return project, order, p.Err()
}

// checkStageGraph checks the stages' names and edges and returns their indexes in a
// topological order (parents first, otherwise as given); a cycle is named on the edge that
// closes it.
func checkStageGraph(stages []NewStage) ([]int, error) {
	var p Problems
	if len(stages) == 0 || len(stages) > MaxStages {
		return nil, fieldErr("stages", "must be 1 to %d stages, got %d", MaxStages, len(stages))
	}
	index := map[string]int{}
	for i, ns := range stages {
		field := fmt.Sprintf("stages[%d].name", i)
		switch _, dup := index[ns.Name]; {
		case !stageName.MatchString(ns.Name):
			p.Add(fieldErr(field, "%q is not a stage name: use 1 to 40 lowercase letters, digits or '-', starting with a letter", truncate(ns.Name, 40)))
		case dup:
			p.Add(fieldErr(field, "%q is named twice", ns.Name))
		default:
			index[ns.Name] = i
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	parents := make([][]int, len(stages))
	for i, ns := range stages {
		seen := map[string]bool{}
		for _, edge := range []struct {
			field string
			names []string
		}{{"after", ns.After}, {"after_ended", ns.AfterEnded}} {
			field := fmt.Sprintf("stages[%d].%s", i, edge.field)
			for _, n := range edge.names {
				j, ok := index[n]
				switch {
				case !ok:
					p.Add(fieldErr(field, "names no stage of the pipeline: %q", truncate(n, 40)))
				case j == i:
					p.Add(fieldErr(field, "a stage cannot follow itself"))
				case seen[n]:
					p.Add(fieldErr(field, "%q is named twice", n))
				default:
					seen[n] = true
					parents[i] = append(parents[i], j)
				}
			}
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	// Kahn's algorithm, taking the first ready stage as given each time.
	done := make([]bool, len(stages))
	order := make([]int, 0, len(stages))
	for len(order) < len(stages) {
		next := -1
		for i := range stages {
			if !done[i] && !slices.ContainsFunc(parents[i], func(j int) bool { return !done[j] }) {
				next = i
				break
			}
		}
		if next < 0 {
			for i := range stages {
				if !done[i] {
					return nil, fieldErr(fmt.Sprintf("stages[%d].after", i), "makes a cycle: stage %q waits, through its parents, for itself", stages[i].Name)
				}
			}
		}
		done[next] = true
		order = append(order, next)
	}
	return order, nil
}

// envSuffix is a stage's name as part of a variable name: upper case, '-' as '_'.
func envSuffix(stage string) string {
	return strings.ReplaceAll(strings.ToUpper(stage), "-", "_")
}

// stageTask is the task a stage submits: its declared task, named "pipeline/stage", in the
// pipeline's project for its owner, with its environment told of the pipeline (EnvPipeline,
// EnvStage), of where it writes (EnvStageOutput) and of where its parents wrote
// (EnvStageInput_PARENT for each parent with an output; EnvStageInput for the first of
// them, after before after_ended). A stage that declares no data check waits for its input
// to be visible when the readiness checks can see it (an http(s) URL, or a path under the
// data roots): shared storage may show a parent's files later than its task ended.
func (s *Store) stageTask(project, pipeline, owner string, pipelineID int64, name string, after, afterEnded []string, output string, nt NewTask, outputs map[string]string) NewTask {
	nt.Project, nt.Owner, nt.Name = project, owner, pipeline+"/"+name
	env := make(map[string]string, len(nt.Env)+4)
	maps.Copy(env, nt.Env)
	env[EnvPipeline] = strconv.FormatInt(pipelineID, 10)
	env[EnvStage] = name
	if output != "" {
		env[EnvStageOutput] = output
	}
	input := ""
	for _, parent := range slices.Concat(after, afterEnded) {
		if out := outputs[parent]; out != "" {
			env[EnvStageInput+"_"+envSuffix(parent)] = out
			if input == "" {
				input = out
			}
		}
	}
	if input != "" {
		env[EnvStageInput] = input
	}
	nt.Env = env
	if input != "" && nt.DataCheck == (DataCheck{}) && Checkable(input) {
		switch {
		case !filepath.IsAbs(input):
			nt.DataCheck, nt.DataReady = DataCheck{URL: input}, false
		case InDataRoots(s.DataRoots(), filepath.Clean(input)):
			nt.DataCheck, nt.DataReady = DataCheck{Path: input}, false
		}
	}
	return nt
}

// stageState is a stage with its current task's state, as advance reads it.
type stageState struct {
	PipelineStage
	TaskState string
}

// advance moves pipe on, in tx, holding its row: it settles the stages whose task ended,
// skips those a failed parent stops, submits those whose parents are done, and ends the
// pipeline once every stage has. Stages are walked parents first, so one pass suffices.
func (s *Store) advance(tx *gorm.DB, pipe Pipeline, project string, lim TaskLimits, now time.Time) error {
	var stages []stageState
	err := tx.Table("pipeline_stages").Select("pipeline_stages.*, COALESCE(tasks.state, '') AS task_state").
		Joins("LEFT JOIN tasks ON tasks.id = pipeline_stages.task_id").
		Where("pipeline_stages.pipeline_id = ?", pipe.ID).Order("pipeline_stages.position").Scan(&stages).Error
	if err != nil {
		return err
	}
	states, outputs := map[string]string{}, map[string]string{}
	for _, st := range stages {
		outputs[st.Name] = st.Output
	}
	for _, st := range stages {
		after, afterEnded := st.Parents()
		state, reason, submit := StageNext(st.State, st.TaskState, after, afterEnded, states)
		if submit {
			nt := s.stageTask(project, pipe.Name, pipe.Owner, pipe.ID, st.Name, after, afterEnded, st.Output, st.Task(), outputs)
			if state, reason, err = s.submitStage(tx, pipe, st.PipelineStage, nt, lim, now); err != nil {
				return err
			}
		} else if state != st.State {
			if err := tx.Model(&PipelineStage{}).Where("id = ?", st.ID).
				Updates(map[string]any{"state": state, "reason": truncate(reason, 500)}).Error; err != nil {
				return err
			}
		}
		states[st.Name] = state
	}
	end, why := PipelineEnd(stages, states)
	if end == "" || pipe.State != PipelineRunning { // a cancelled one keeps its state
		return nil
	}
	return tx.Model(&Pipeline{}).Where("id = ?", pipe.ID).
		Updates(map[string]any{"state": end, "reason": why, "ended_at": now}).Error
}

// StageNext is what becomes of a stage in state whose task (if any) is in taskState, given
// the states its parents took in this pass: its next state and reason, and whether its task
// is to be submitted now. A stage waits until every parent in after succeeded and every
// parent in afterEnded ended (a skipped parent counts as ended); one in after that failed or
// was skipped skips it.
func StageNext(state, taskState string, after, afterEnded []string, parents map[string]string) (next, reason string, submit bool) {
	switch state {
	case StageSubmitted:
		switch taskState {
		case TaskSucceeded:
			return StageSucceeded, "", false
		case TaskFailed, TaskCancelled, TaskTimedOut, TaskReclaimed:
			return StageFailed, StageWhyTask + " " + taskState, false
		}
		return state, "", false
	case StageWaiting:
	default:
		return state, "", false
	}
	ready := true
	for _, p := range after {
		switch parents[p] {
		case StageSucceeded:
		case StageFailed, StageSkipped:
			return StageSkipped, StageWhyParent + " " + p, false
		default:
			ready = false
		}
	}
	for _, p := range afterEnded {
		if !stageEnded(parents[p]) {
			ready = false
		}
	}
	return state, "", ready
}

func stageEnded(state string) bool {
	return state == StageSucceeded || state == StageFailed || state == StageSkipped
}

// PipelineEnd is the state a pipeline ends in once every stage has ended (succeeded when
// all did, else failed, naming the first stage that did not, in order), or "" while one has
// not.
func PipelineEnd(stages []stageState, states map[string]string) (state, reason string) {
	first := ""
	for _, st := range stages {
		switch s := states[st.Name]; {
		case !stageEnded(s):
			return "", ""
		case s != StageSucceeded && first == "":
			first = st.Name
		}
	}
	if first != "" {
		return PipelineFailed, "stage " + first
	}
	return PipelineSucceeded, ""
}

// submitStage submits a stage's task in tx as CreateTask would. A task the store refuses
// now (the project's quota gone, a spec no pool has any more) fails the stage with the
// reason, and the pipeline goes on without it.
func (s *Store) submitStage(tx *gorm.DB, pipe Pipeline, st PipelineStage, nt NewTask, lim TaskLimits, now time.Time) (state, reason string, err error) {
	var t Task
	if err := s.taskFromNew(newSubmitReads(tx), nt, lim, now, &t); err != nil {
		if AllFieldErrors(err) == nil {
			return "", "", err
		}
		reason = truncate(StageWhySubmit+" "+err.Error(), 500)
		return StageFailed, reason, tx.Model(&PipelineStage{}).Where("id = ?", st.ID).
			Updates(map[string]any{"state": StageFailed, "reason": reason}).Error
	}
	if err := tx.Create(&t).Error; err != nil {
		return "", "", err
	}
	why := fmt.Sprintf("submitted by pipeline %d (stage %s, run %d) for %s", pipe.ID, st.Name, pipe.Run, t.Owner)
	if err := tx.Create(&TaskEvent{TaskID: t.ID, At: now, To: t.State, Reason: why}).Error; err != nil {
		return "", "", err
	}
	if err := tx.Create(&PipelineTask{TaskID: t.ID, PipelineID: pipe.ID, StageID: st.ID, Run: pipe.Run}).Error; err != nil {
		return "", "", err
	}
	return StageSubmitted, "", tx.Model(&PipelineStage{}).Where("id = ?", st.ID).
		Updates(map[string]any{"state": StageSubmitted, "reason": "", "task_id": t.ID}).Error
}

// AdvancePipelines moves on every running pipeline one of whose stages' tasks ended, each in
// a transaction of its own that holds the pipeline's row, and settles the stages of a
// cancelled one whose tasks were stopping. It reads one query when none did; the scheduler's
// loop calls it on each pass, which every task's end wakes. It returns how many pipelines it
// moved.
func (s *Store) AdvancePipelines(ctx context.Context, lim TaskLimits, now time.Time) (int, error) {
	now = UTC(now)
	var ids []int64
	err := s.db.WithContext(ctx).Table("pipeline_stages").Distinct("pipeline_stages.pipeline_id").
		Joins("JOIN pipelines ON pipelines.id = pipeline_stages.pipeline_id").
		Joins("JOIN tasks ON tasks.id = pipeline_stages.task_id").
		Where("pipelines.state IN ? AND pipeline_stages.state = ? AND tasks.state IN ?", []string{PipelineRunning, PipelineCancelled}, StageSubmitted,
			taskEndStates).
		Order("pipeline_stages.pipeline_id").Pluck("pipeline_stages.pipeline_id", &ids).Error
	if err != nil {
		return 0, fmt.Errorf("models: pipelines to advance: %w", err)
	}
	for _, id := range ids {
		err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			pipe, project, err := lockPipeline(tx, id)
			if err != nil || pipe.State != PipelineRunning && pipe.State != PipelineCancelled {
				return err
			}
			return s.advance(tx, pipe, project, lim, now)
		})
		if err != nil {
			return 0, fmt.Errorf("models: advance pipeline %d: %w", id, err)
		}
	}
	return len(ids), nil
}

// lockPipeline reads a pipeline and its project's name, holding its row.
func lockPipeline(tx *gorm.DB, id int64) (Pipeline, string, error) {
	var pipe Pipeline
	if err := forUpdate(tx).Where("id = ?", id).Take(&pipe).Error; err != nil {
		return pipe, "", notFound(fmt.Sprintf("pipeline %d", id), err)
	}
	var project Project
	if err := tx.Select("name").Where("id = ?", pipe.ProjectID).Take(&project).Error; err != nil {
		return pipe, "", err
	}
	return pipe, project.Name, nil
}

// RerunPipeline runs a failed pipeline again from where it failed: the stages that did not
// succeed, and every stage downstream of them, wait again; those that succeeded keep their
// result and are not run again. It submits the stages whose parents are done at once.
func (s *Store) RerunPipeline(ctx context.Context, id int64, lim TaskLimits, now time.Time) (Pipeline, error) {
	now = UTC(now)
	var pipe Pipeline
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var project string
		var err error
		if pipe, project, err = lockPipeline(tx, id); err != nil {
			return err
		}
		if pipe.State != PipelineFailed {
			return fmt.Errorf("models: pipeline %d is %s, not failed: %w", id, pipe.State, ErrConflict)
		}
		var stages []PipelineStage
		if err := tx.Where("pipeline_id = ?", id).Order("position").Find(&stages).Error; err != nil {
			return err
		}
		again := map[string]bool{}
		var ids []int64
		for _, st := range stages { // parents first: a stage downstream of one run again runs again
			after, afterEnded := st.Parents()
			if st.State != StageSucceeded || slices.ContainsFunc(slices.Concat(after, afterEnded), func(p string) bool { return again[p] }) {
				again[st.Name] = true
				ids = append(ids, st.ID)
			}
		}
		if err := tx.Model(&PipelineStage{}).Where("id IN ?", ids).
			Updates(map[string]any{"state": StageWaiting, "reason": "", "task_id": nil}).Error; err != nil {
			return err
		}
		pipe.Run++
		pipe.State, pipe.Reason, pipe.EndedAt = PipelineRunning, "", nil
		if err := tx.Model(&Pipeline{}).Where("id = ?", id).
			Updates(map[string]any{"run": pipe.Run, "state": pipe.State, "reason": "", "ended_at": nil}).Error; err != nil {
			return err
		}
		return s.advance(tx, pipe, project, lim, now)
	})
	if err != nil {
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
			return Pipeline{}, err
		}
		return Pipeline{}, fmt.Errorf("models: rerun pipeline %d: %w", id, err)
	}
	return pipe, nil
}

// CancelPipeline cancels a running pipeline for by: its stages that wait are skipped
// ("cancelled by"), the tasks of those submitted are cancelled as CancelTask would (a queued
// one at once, a running one by asking its node to stop it, its stage settling once it has),
// and the pipeline ends cancelled. Stages that ended keep their result. One that is not
// running is ErrConflict.
func (s *Store) CancelPipeline(ctx context.Context, id int64, by string, now time.Time) (Pipeline, error) {
	now = UTC(now)
	var pipe Pipeline
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var project string
		var err error
		if pipe, project, err = lockPipeline(tx, id); err != nil {
			return err
		}
		if pipe.State != PipelineRunning {
			return fmt.Errorf("models: pipeline %d is %s, not running: %w", id, pipe.State, ErrConflict)
		}
		var stages []stageState
		err = tx.Table("pipeline_stages").Select("pipeline_stages.*, COALESCE(tasks.state, '') AS task_state").
			Joins("LEFT JOIN tasks ON tasks.id = pipeline_stages.task_id").
			Where("pipeline_stages.pipeline_id = ?", id).Order("pipeline_stages.position").Scan(&stages).Error
		if err != nil {
			return err
		}
		for _, st := range stages {
			switch {
			case st.State == StageWaiting:
				err = tx.Model(&PipelineStage{}).Where("id = ?", st.ID).
					Updates(map[string]any{"state": StageSkipped, "reason": truncate(StageWhyCancelled+" "+by, 500)}).Error
			case st.State == StageSubmitted && st.TaskID != nil && !taskEnded(st.TaskState):
				err = cancelTask(tx, *st.TaskID, by, now)
			}
			if err != nil {
				return err
			}
		}
		pipe.State, pipe.Reason, pipe.EndedAt = PipelineCancelled, truncate(StageWhyCancelled+" "+by, 500), &now
		if err := tx.Model(&Pipeline{}).Where("id = ?", id).
			Updates(map[string]any{"state": pipe.State, "reason": pipe.Reason, "ended_at": now}).Error; err != nil {
			return err
		}
		if err := audit(tx, now, by, AuditPipelineCancel, &pipe.ProjectID, fmt.Sprintf("pipeline %d", id),
			map[string]string{"state": PipelineRunning}, map[string]string{"state": PipelineCancelled}); err != nil {
			return err
		}
		// Nothing waits any more, so advance submits nothing (its limits go unused): it
		// settles the stages whose task ended just now.
		return s.advance(tx, pipe, project, DefaultTaskLimits, now)
	})
	if err != nil {
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
			return Pipeline{}, err
		}
		return Pipeline{}, fmt.Errorf("models: cancel pipeline %d: %w", id, err)
	}
	return pipe, nil
}

// taskEndStates are the states a task ends in.
var taskEndStates = []string{TaskSucceeded, TaskFailed, TaskCancelled, TaskTimedOut, TaskReclaimed}

// taskEnded reports whether a task in state has ended.
func taskEnded(state string) bool { return slices.Contains(taskEndStates, state) }
