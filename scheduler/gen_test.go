package scheduler

import (
	"fmt"
	"kashi/models"
	"math/rand/v2"
	"slices"
	"time"
)

// genConfig shapes a random snapshot.
type genConfig struct {
	nodes, perNode int
	specs          []string
	pending        int
	busy           float64 // share of cards held by running tasks
	bigTasks       bool    // some tasks larger than a node
	quotas         bool
	// mixed adds what a large deployment's waiting set holds besides: nodes in two regions
	// whose pools state their network and storage, tasks that ask for them (a region, data
	// in a region, a least network or storage speed), service replicas, reruns, and the
	// stages of pipelines (each stage submitted once its parents ended: ordinary tasks of
	// one project and spec submitted together).
	mixed bool
}

var genSpecs = []string{"A100-80G", "H100-80G", "RTX4090-24G"}

// genSnapshot makes a random but valid snapshot: nodes of mixed specs (and, with few nodes,
// sizes), running tasks holding about busy of the cards, and a queue of mixed tasks.
func genSnapshot(r *rand.Rand, c genConfig, now time.Time) Snapshot {
	var s Snapshot
	for i := range c.nodes {
		spec := c.specs[r.IntN(len(c.specs))]
		size := c.perNode
		if size == 0 {
			size = []int{1, 2, 4, 8}[r.IntN(4)]
		}
		n := node(int64(i+1), spec, size)
		n.Schedulable = r.IntN(20) != 0
		n.ShortOnly = r.IntN(6) == 0
		if c.mixed {
			// Pools state their network and storage: one pool per spec and region.
			reg := r.IntN(len(genRegions))
			n.Region, n.Pool = genRegions[reg], spec+"-"+genRegions[reg]
			k := (slices.Index(c.specs, spec) + reg) % 3
			n.InterNodeGbps, n.StorageMBps, n.NoInterNode = []int{0, 100, 400}[k], []int{500, 0, 2000}[k], k == 0
		}
		s.Nodes = append(s.Nodes, n)
	}
	projects := []string{"vision", "speech", "llm", "infra", "rec"}
	s.Projects = map[string]Project{}
	for _, p := range projects {
		if r.IntN(5) != 0 {
			s.Projects[p] = Project{Share: float64(1 + r.IntN(3)), Usage: float64(r.IntN(4) * 100)}
		}
	}
	// Running tasks: fill nodes from the start, in chunks of 1–size cards.
	task := int64(1_000_000)
	for _, n := range s.Nodes {
		i := 0
		for i < len(n.GPUs) {
			k := 1 + r.IntN(len(n.GPUs)-i)
			if r.Float64() < c.busy {
				var ids []int64
				for _, g := range n.GPUs[i : i+k] {
					ids = append(ids, g.ID)
				}
				task++
				run := Running{TaskID: task, Project: projects[r.IntN(len(projects))], GPUIDs: ids,
					StartedAt: now.Add(-time.Duration(r.IntN(600)) * time.Minute)}
				if r.IntN(4) != 0 {
					run.EstRuntime = time.Duration(1+r.IntN(24*60)) * time.Minute
				}
				if r.IntN(10) != 0 {
					run.MaxRuntime = run.EstRuntime + time.Duration(r.IntN(12*60))*time.Minute
				}
				s.Running = append(s.Running, run)
			} else if r.IntN(8) == 0 {
				for j := i; j < i+k; j++ {
					n.GPUs[j].Outside = true // another workload's, or a process started by hand
				}
			}
			i += k
		}
	}
	if c.quotas {
		s.Quotas = map[string]QuotaState{
			"vision": {MaxGPUs: 64 + r.IntN(64), Guaranteed: map[string]int{genSpecs[r.IntN(len(genSpecs))]: r.IntN(24)}},
			"speech": {MaxGPUsBySpec: map[string]int{genSpecs[0]: r.IntN(32)}, Overflow: r.IntN(2) == 0},
			"rec":    {BudgetExhausted: r.IntN(3) == 0, Overflow: r.IntN(2) == 0},
		}
	}
	s.Pending = make([]Pending, c.pending)
	for i := range s.Pending {
		s.Pending[i] = genPending(r, c, int64(i+1), projects, now)
	}
	s.Bookings = genBookings(now, c)
	return s
}

func genPending(r *rand.Rand, c genConfig, id int64, projects []string, now time.Time) Pending {
	p := Pending{
		ID:          id,
		Project:     projects[r.IntN(len(projects))],
		Queue:       models.QueueLong,
		Priority:    []string{models.PriorityUrgent, models.PriorityHigh, models.PriorityNormal, models.PriorityNormal, models.PriorityLow}[r.IntN(5)],
		GPUs:        []int{1, 1, 1, 2, 2, 4, 8}[r.IntN(7)],
		SubmittedAt: now.Add(-time.Duration(r.IntN(3*24*60)) * time.Minute),
		DataReady:   r.IntN(10) != 0,
		Deferrable:  r.IntN(8) == 0,
	}
	switch k := r.IntN(6); {
	case k == 0 && len(c.specs) > 1:
		// Several specs, any of them.
		i := r.IntN(len(c.specs))
		p.Specs = []string{c.specs[i], c.specs[(i+1+r.IntN(len(c.specs)-1))%len(c.specs)]}
	case k >= 2:
		p.Spec = c.specs[r.IntN(len(c.specs))]
	}
	if c.bigTasks && r.IntN(40) == 0 {
		p.GPUs = []int{12, 16, 20, 32}[r.IntN(4)]
	}
	if r.IntN(3) == 0 {
		p.Queue = models.QueueShort
		p.MaxRuntime = time.Duration(10+r.IntN(110)) * time.Minute
	} else if r.IntN(8) != 0 {
		p.MaxRuntime = time.Duration(1+r.IntN(72)) * time.Hour
	}
	if r.IntN(4) != 0 {
		p.EstRuntime = time.Duration(5+r.IntN(24*60)) * time.Minute
	}
	if r.IntN(50) == 0 {
		p.GPUs = 1000 // more than any pool
	}
	if c.mixed {
		genMixed(r, &p)
	}
	return p
}

var genRegions = []string{"cn-east", "cn-north"}

// genMixed gives p the attributes of genConfig.mixed.
func genMixed(r *rand.Rand, p *Pending) {
	switch r.IntN(8) {
	case 0:
		p.Regions = []string{genRegions[r.IntN(len(genRegions))]}
	case 1:
		p.DataRegion = genRegions[r.IntN(len(genRegions))]
	case 2:
		p.MinInterNodeGbps, p.AllowNoInterconnect = 100, r.IntN(2) == 0
	case 3:
		p.MinStorageMBps = 500
	case 4:
		p.Service = true
	case 5:
		p.Rerun = true
	case 6:
		// A pipeline's stage: its siblings come in a run of ids, one project and spec.
		p.Project, p.Spec, p.GPUs = "llm", genSpecs[0], 1+r.IntN(2)
	}
}

func (c genConfig) String() string {
	return fmt.Sprintf("%d nodes × %d, %d pending", c.nodes, c.perNode, c.pending)
}
