package handlers

import "time"

// Store is what the handlers need of models.Store: every area's interface.
type Store interface {
	BoardStore
	TasksStore
	ProjectsStore
	PoolsStore
	BillsStore
	AgentStore
	PeopleStore
	ServicesStore
}

// Handler serves every route, one area at a time: each area is a small handler over the part
// of the store it uses. Build it with New.
type Handler struct {
	Board    *Board
	Tasks    *Tasks
	Projects *Projects
	Pools    *Pools
	Bills    *Bills
	Agent    *Agent
	People   *People
	Services *Services
}

// New returns a Handler. now is the clock (the demo's runs fast).
func New(store Store, sched Scheduler, cfg Config, now func() time.Time) *Handler {
	c := &core{cfg: cfg, now: now, sched: sched}
	return &Handler{
		Board:    newBoard(c, store),
		Tasks:    newTasks(c, store),
		Projects: newProjects(c, store),
		Pools:    newPools(c, store),
		Bills:    newBills(c, store),
		Agent:    newAgent(c, store),
		People:   newPeople(c, store),
		Services: newServices(c, store),
	}
}
