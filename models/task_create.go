package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gorm.io/gorm"
)

// NewTask is a task as submitted.
type NewTask struct {
	Project string
	Name    string
	Owner   string
	GPUs    int
	Spec    string
	// Specs and Regions, when set, are the specs and regions the task accepts (any of them).
	Specs       []string
	Regions     []string
	Queue       string
	Priority    string
	EstGPUHours float64
	// MaxRuntime 0 takes the class limit.
	MaxRuntime time.Duration
	Command    []string
	Env        map[string]string
	// SecretEnv names the variables of Env whose values are stored encrypted (see
	// Store.SetSecretKey).
	SecretEnv []string
	Workdir   string
	// Image is a container image to run Command in; empty runs it on the host.
	Image     string
	DataReady bool
	DataCheck DataCheck
	// DataLocations is where the task's data is in each region it may run in: region →
	// an absolute path or a URI. The node the task runs on is told its region's.
	DataLocations map[string]string
	Deferrable    bool
	// IdempotencyKey makes a repeated submit return the first task; empty means none. A key
	// is scoped to IdempotencyScope (who sent it: a user, or a user's API token) and the
	// project, so one caller's key never finds another's task.
	IdempotencyKey   string
	IdempotencyScope string
	// TemplateID is the template the task comes from, at TemplateVersion; 0 for none.
	TemplateID      int64
	TemplateVersion int
	// Kind is TaskKindService for an inference service, whose Service must be set; empty or
	// TaskKindBatch for a batch task.
	Kind    string
	Service ServiceSpec
	// MaxAttempts is the most runs the task may have (1–MaxMaxAttempts; 0 asks
	// DefaultMaxAttempts); RerunOnFailure reruns it also when it exits non-zero by itself.
	// Left out of the request's hash when zero, as submits before them hashed.
	MaxAttempts    int  `json:",omitempty"`
	RerunOnFailure bool `json:",omitempty"`
	// MinInterNodeGbps (0–MaxInterNodeGbps) and MinStorageMBps (0–MaxStorageMBps) are the
	// least a pool must state for the task to run there; AllowNoInterconnect lets it run
	// across nodes that have no network between them. Left out of the hash when zero.
	MinInterNodeGbps    int  `json:",omitempty"`
	MinStorageMBps      int  `json:",omitempty"`
	AllowNoInterconnect bool `json:",omitempty"`
}

// DataCheck is a declared readiness check: a path that must exist or a URL that must answer
// 2xx. At most one is set; none means readiness is set by hand.
type DataCheck struct {
	Path string `json:"path,omitempty"`
	URL  string `json:"url,omitempty"`
	// Region is where the data is: the scheduler prefers that region's cards.
	Region string `json:"region,omitempty"`
}

// TaskLimits bound what a submit may ask for.
type TaskLimits struct {
	// ShortMaxRuntime is the short lane's runtime limit (default 2 h).
	ShortMaxRuntime time.Duration
	// LongMaxRuntime is the long lane's runtime limit (default 14 days).
	LongMaxRuntime time.Duration
}

// DefaultTaskLimits are used when the configuration sets none.
var DefaultTaskLimits = TaskLimits{ShortMaxRuntime: 2 * time.Hour, LongMaxRuntime: 14 * 24 * time.Hour}

// Limit is the runtime limit of the queue (lane) named: the short lane's for QueueShort,
// else the long lane's.
func (l TaskLimits) Limit(queue string) time.Duration {
	if queue == QueueShort {
		return l.ShortMaxRuntime
	}
	return l.LongMaxRuntime
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// imageRef is a container image reference: [registry[:port]/]path[:tag][@digest], at most
// 255 bytes; no spaces or shell characters, and no leading '-' (it becomes an argv element).
var imageRef = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(:[0-9]+)?(/[a-z0-9][a-z0-9._-]*)*(:[A-Za-z0-9_][A-Za-z0-9._-]{0,127})?(@sha256:[a-f0-9]{64})?$`)

// CreateTask validates and stores a submitted task with its first event. A repeated
// IdempotencyKey of the same scope and project returns the task first stored under it and
// created=false; the same key with a different request is a FieldError on "Idempotency-Key".
// Submits that arrive together are checked and written in one transaction
// (task_commit.go); each gets the answer it would get alone. Once its group has begun, a
// submit is answered even when ctx ends meanwhile.
func (s *Store) CreateTask(ctx context.Context, nt NewTask, lim TaskLimits, now time.Time) (t Task, created bool, err error) {
	if nt.IdempotencyKey != "" {
		if err := checkName("Idempotency-Key", nt.IdempotencyKey, 200); err != nil {
			return Task{}, false, err
		}
		if err := checkName("idempotency_scope", nt.IdempotencyScope, 100); err != nil {
			return Task{}, false, err
		}
		if t, found, err := s.taskByKey(s.db.WithContext(quiet(ctx)), nt); found || err != nil {
			return t, false, err
		}
	}
	j := &submitJob{ctx: ctx, nt: nt, lim: lim, now: UTC(now), done: make(chan submitDone, 1)}
	if err := s.submits.enqueue(ctx, j); err != nil {
		return Task{}, false, err
	}
	d, err := answer(context.WithoutCancel(ctx), s.submits, j.done)
	if err != nil {
		return Task{}, false, err
	}
	return d.t, d.created, d.err
}

// taskByKey finds the task stored under nt's idempotency key, scope and project. found is
// false when there is none (or the project is unknown, which validation then reports); a
// task stored from a different request is a FieldError.
// Most keys are new: the task's id is looked up first, and its 57 columns read only when
// one is stored (at 100 submits a second this halved the lookup's CPU, 0.67 to 0.33 ms a
// submit).
func (s *Store) taskByKey(db *gorm.DB, nt NewTask) (t Task, found bool, err error) {
	var ids []int64
	err = db.Model(&Task{}).Joins("JOIN projects ON projects.id = tasks.project_id").
		Where("projects.name = ? AND tasks.idempotency_scope = ? AND tasks.idempotency_key = ?", nt.Project, nt.IdempotencyScope, nt.IdempotencyKey).
		Limit(1).Pluck("tasks.id", &ids).Error
	if err == nil && len(ids) == 0 {
		return Task{}, false, nil
	}
	if err == nil {
		err = db.Take(&t, ids[0]).Error
	}
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return Task{}, false, nil
	case err != nil:
		return Task{}, false, fmt.Errorf("models: task by idempotency key: %w", err)
	case t.IdempotencyHash != requestHash(nt):
		return Task{}, true, fieldErr("Idempotency-Key", "was already used for a different request")
	}
	return t, true, nil
}

// requestHash is the hex SHA-256 of a submit without its idempotency key and scope: equal
// requests hash alike (encoding/json sorts map keys).
func requestHash(nt NewTask) string {
	nt.IdempotencyKey, nt.IdempotencyScope = "", ""
	b, _ := json.Marshal(nt) // plain data; never fails
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// taskFromNew validates nt and fills t. Every bad field is named at once (a FieldErrors),
// as far as one bad field lets the others be checked: a project that is unknown leaves its
// template and quota unchecked, bad cards or specs leave the quota unchecked.
func (s *Store) taskFromNew(r *submitReads, nt NewTask, lim TaskLimits, now time.Time, t *Task) error {
	var p Problems
	project, err := r.project(nt)
	if err = p.Add(err); err != nil {
		return err
	}
	if project.ID != 0 {
		if err := p.Add(checkTemplateOf(r.tx, nt, project)); err != nil {
			return err
		}
	}
	if err := p.Add(checkName("name", nt.Name, 200)); err != nil {
		return err
	}
	if strings.ContainsFunc(nt.Name, unicode.IsControl) {
		p.Add(fieldErr("name", "must not contain control characters (tabs, newlines, escapes)"))
	}
	if err := p.Add(checkName("owner", nt.Owner, 100)); err != nil {
		return err
	}
	if err := p.Add(s.checkPlaces(r, nt)); err != nil {
		return err
	}
	if project.ID != 0 && !p.Has("gpus") && !p.Has("spec") && !p.Has("specs") {
		if err := p.Add(checkNoQuota(r, project, nt)); err != nil {
			return err
		}
	}
	p.Add(checkKind(nt))
	locations, err := checkDataLocations(nt)
	p.Add(err)
	maxRuntime := checkClass(&p, nt, lim)
	attempts, err := checkAttempts(nt)
	p.Add(err)
	if nt.MinInterNodeGbps < 0 || nt.MinInterNodeGbps > MaxInterNodeGbps {
		p.Add(fieldErr("min_inter_node_gbps", "must be 0 to %d Gb/s, got %d", MaxInterNodeGbps, nt.MinInterNodeGbps))
	}
	if nt.MinStorageMBps < 0 || nt.MinStorageMBps > MaxStorageMBps {
		p.Add(fieldErr("min_storage_mbps", "must be 0 to %d MB/s, got %d", MaxStorageMBps, nt.MinStorageMBps))
	}
	if nt.EstGPUHours < 0 || nt.EstGPUHours > 1e7 {
		p.Add(fieldErr("est_gpu_hours", "must be between 0 and 10,000,000, got %g", nt.EstGPUHours))
	}
	command, env, check := encodeRun(&p, nt)
	if !p.Has("data_check") {
		p.Add(s.checkDataPaths(nt))
	}
	if !p.Has("spec") && !p.Has("specs") {
		if err := p.Add(checkImageRequired(r, nt.Spec, nt.Image)); err != nil {
			return err
		}
	}
	if len(nt.SecretEnv) > len(nt.Env) {
		p.Add(fieldErr("secret_env", "names more variables than env has"))
	}
	if err := p.Err(); err != nil {
		return err
	}
	if sealed, err := s.sealEnv(nt.Env, nt.SecretEnv); err != nil {
		return err
	} else if sealed != "" {
		env = sealed
	}
	state, reason := TaskWaitingData, "data not ready"
	if nt.DataReady {
		state, reason = TaskQueued, ""
	}
	var key *string
	var scope, hash string
	if nt.IdempotencyKey != "" {
		key, scope, hash = &nt.IdempotencyKey, nt.IdempotencyScope, requestHash(nt)
	}
	*t = Task{ProjectID: project.ID, Name: nt.Name, Owner: nt.Owner, GPUs: nt.GPUs, Spec: nt.Spec,
		Specs: nameList(nt.Specs), Regions: nameList(nt.Regions), Queue: nt.Queue,
		Priority: nt.Priority, EstGPUHours: nt.EstGPUHours, MaxRuntimeS: int64(maxRuntime / time.Second),
		Command: command, Env: env, Workdir: nt.Workdir, Image: nt.Image, DataReady: nt.DataReady, DataCheck: check,
		DataLocations: locations, Deferrable: nt.Deferrable, State: state, Reason: reason, IdempotencyKey: key,
		IdempotencyScope: scope, IdempotencyHash: hash, SubmittedAt: now,
		Attempt: 1, MaxAttempts: attempts, RerunOnFailure: nt.RerunOnFailure,
		MinInterNodeGbps: nt.MinInterNodeGbps, MinStorageMBps: nt.MinStorageMBps, AllowNoInterconnect: nt.AllowNoInterconnect}
	if nt.TemplateID != 0 {
		t.TemplateID, t.TemplateVersion = &nt.TemplateID, nt.TemplateVersion
	}
	withService(t, nt)
	return nil
}

// projectToSubmit is the project nt names, in use; a bad one is a *FieldError on "project"
// and a zero Project.
func projectToSubmit(tx *gorm.DB, nt NewTask) (Project, error) {
	var project Project
	if err := checkName("project", nt.Project, 100); err != nil {
		return Project{}, err
	}
	if err := tx.Scopes(textIs("name", nt.Project)).Take(&project).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return Project{}, fieldErr("project", "unknown project %q", nt.Project)
		}
		return Project{}, err
	}
	if err := checkInUse(project, "project"); err != nil {
		return Project{}, err
	}
	return project, nil
}

// checkTemplateOf refuses a template that is not the project's.
func checkTemplateOf(tx *gorm.DB, nt NewTask, project Project) error {
	if nt.TemplateID == 0 {
		return nil
	}
	var n int64
	if err := tx.Model(&TaskTemplate{}).Where("id = ? AND project_id = ?", nt.TemplateID, project.ID).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return fieldErr("template", "project %q has no template %d", project.Name, nt.TemplateID)
	}
	return nil
}

// checkCapacity refuses a spec no pool has and more GPUs than the largest pool can hold.
func (s *Store) checkCapacity(r *submitReads, spec string, gpus int) error {
	if spec != "" {
		if err := checkName("spec", spec, 100); err != nil {
			return err
		}
		n, err := r.poolsOfSpec(spec)
		if err != nil {
			return err
		}
		if n == 0 {
			var p Problems
			p.Add(fieldErr("spec", "no pool has %q GPUs", spec))
			if gpus < 1 {
				p.Add(fieldErr("gpus", "must be at least 1, got %d", gpus))
			}
			return p.Err()
		}
	}
	capacity, ok := s.capacity.get(spec)
	if !ok {
		var err error
		if capacity, err = s.largestPool(r.tx, spec); err != nil {
			return err
		}
		s.capacity.put(spec, capacity)
	}
	if gpus < 1 || int64(gpus) > capacity {
		return fieldErr("gpus", "must be between 1 and %d (the largest pool of this spec), got %d", capacity, gpus)
	}
	return nil
}

// largestPool returns the most GPUs one pool of spec ("" = any) holds or, for a pool the
// scaling loop manages, may grow to (max nodes × GPUs per node).
func (s *Store) largestPool(tx *gorm.DB, spec string) (int64, error) {
	q := tx.Table("gpus").Select("COUNT(*) AS n").Joins("JOIN nodes ON nodes.id = gpus.node_id").
		Where("nodes.state <> ?", NodeRemoved).Group("nodes.pool_id")
	if spec != "" {
		q = q.Where("gpus.spec = ?", spec)
	}
	var counts []int64
	if err := q.Pluck("n", &counts).Error; err != nil {
		return 0, err
	}
	var most int64
	for _, c := range counts {
		most = max(most, c)
	}
	pq := tx.Table("pool_policies").Select("pool_policies.config").Joins("JOIN pools ON pools.id = pool_policies.pool_id").
		Where("pool_policies.enabled")
	if spec != "" {
		pq = pq.Where("pools.spec = ?", spec)
	}
	var configs []string
	if err := pq.Pluck("config", &configs).Error; err != nil {
		return 0, err
	}
	for _, raw := range configs {
		var c PoolConfig
		if json.Unmarshal([]byte(raw), &c) == nil {
			most = max(most, int64(c.MaxNodes)*int64(c.GPUsPerNode))
		}
	}
	return most, nil
}

// checkClass validates queue class, priority and runtime into p and returns the max runtime.
func checkClass(p *Problems, nt NewTask, lim TaskLimits) time.Duration {
	limit := lim.Limit(nt.Queue)
	switch nt.Queue {
	case QueueShort, QueueLong:
	default:
		p.Add(fieldErr("queue", "must be %q or %q, got %q", QueueShort, QueueLong, truncate(nt.Queue, 20)))
	}
	if !slices.Contains(Priorities, nt.Priority) {
		p.Add(fieldErr("priority", "must be one of urgent, high, normal, low, got %q", truncate(nt.Priority, 20)))
	}
	switch {
	case nt.MaxRuntime == 0:
		return limit
	case nt.MaxRuntime < time.Second:
		p.Add(fieldErr("max_runtime_s", "must be positive"))
	case nt.MaxRuntime > limit:
		p.Add(fieldErr("max_runtime_s", "the %s queue allows at most %d s, got %d", nt.Queue, int64(limit/time.Second), int64(nt.MaxRuntime/time.Second)))
	}
	return nt.MaxRuntime
}

// encodeRun validates the command, environment, working directory, image and data check
// into p and returns them JSON-encoded as stored.
func encodeRun(p *Problems, nt NewTask) (command, env, check string) {
	size := 0
	switch {
	case len(nt.Command) == 0 || len(nt.Command) > 1024:
		p.Add(fieldErr("command", "must be a list of 1 to 1,024 arguments"))
	default:
		for i, a := range nt.Command {
			if !utf8.ValidString(a) {
				p.Add(fieldErr(fmt.Sprintf("command[%d]", i), "is not valid UTF-8"))
				break
			}
			size += len(a)
		}
		if nt.Command[0] == "" {
			p.Add(fieldErr("command[0]", "the program is required"))
		}
	}
	if len(nt.Env) > 256 {
		p.Add(fieldErr("env", "at most 256 variables"))
	}
	for _, k := range slices.Sorted(maps.Keys(nt.Env)) {
		v := nt.Env[k]
		if !envName.MatchString(k) || len(k) > 128 {
			p.Add(fieldErr("env", "%q is not a variable name", truncate(k, 40)))
			break
		}
		if !utf8.ValidString(v) {
			p.Add(fieldErr("env."+k, "is not valid UTF-8"))
			break
		}
		size += len(k) + len(v)
	}
	if size > 64<<10 {
		p.Add(fieldErr("command", "command and environment exceed 64 KiB"))
	}
	if nt.Workdir != "" && (!utf8.ValidString(nt.Workdir) || !path.IsAbs(nt.Workdir) || len(nt.Workdir) > 1024) {
		p.Add(fieldErr("workdir", "must be an absolute path"))
	}
	if nt.Image != "" && (len(nt.Image) > 255 || !imageRef.MatchString(nt.Image)) {
		p.Add(fieldErr("image", "%q is not an image reference such as registry.example.com/team/train:1.2", truncate(nt.Image, 60)))
	}
	switch {
	case nt.DataCheck.Path != "" && nt.DataCheck.URL != "":
		p.Add(fieldErr("data_check", "give a path or a url, not both"))
	case nt.DataCheck.Region != "" && nt.DataCheck.Path == "" && nt.DataCheck.URL == "":
		p.Add(fieldErr("data_check.region", "names the region of a path or url; give one"))
	case nt.DataCheck.Path != "":
		if !utf8.ValidString(nt.DataCheck.Path) || !path.IsAbs(nt.DataCheck.Path) || len(nt.DataCheck.Path) > 1024 {
			p.Add(fieldErr("data_check.path", "must be an absolute path"))
		}
	case nt.DataCheck.URL != "":
		u, err := url.Parse(nt.DataCheck.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(nt.DataCheck.URL) > 1024 {
			p.Add(fieldErr("data_check.url", "must be an http or https URL"))
		}
	}
	if nt.DataCheck.Region != "" {
		p.Add(checkName("data_check.region", nt.DataCheck.Region, 100))
	}
	c, _ := json.Marshal(nt.Command)
	e, _ := json.Marshal(nt.Env)
	if nt.Env == nil {
		e = []byte("{}")
	}
	if nt.DataCheck != (DataCheck{}) {
		b, _ := json.Marshal(nt.DataCheck)
		check = string(b)
	}
	return string(c), string(e), check
}
