package web

import (
	"net/http"
	"time"

	"kashi/handlers"
	"kashi/handlers/agent"
	"kashi/handlers/bills"
	"kashi/handlers/board"
	"kashi/handlers/people"
	"kashi/handlers/pools"
	"kashi/handlers/projects"
	"kashi/handlers/services"
	"kashi/handlers/tasks"
)

// Store is what the areas need of models.Store: every area's interface.
type Store interface {
	board.Store
	tasks.Store
	projects.Store
	pools.Store
	bills.Store
	agent.Store
	people.Store
	services.Store
}

// Areas serves every route, one area at a time: each area is a small handler over the part
// of the store it uses. Build it with NewAreas.
type Areas struct {
	Board    *board.Handler
	Tasks    *tasks.Handler
	Projects *projects.Handler
	Pools    *pools.Handler
	Bills    *bills.Handler
	Agent    *agent.Handler
	People   *people.Handler
	Services *services.Handler
	// Metrics serves /metrics; nil serves the default registry's.
	Metrics http.Handler
}

// NewAreas returns every area over one store. now is the clock (the demo's runs fast).
func NewAreas(store Store, sched handlers.Scheduler, cfg handlers.Config, now func() time.Time) *Areas {
	c := &handlers.Core{Cfg: cfg, Now: now, Sched: sched}
	pl := pools.New(c, store)
	return &Areas{
		Board:    board.New(c, store),
		Tasks:    tasks.New(c, store),
		Projects: projects.New(c, store, pl.Changes()),
		Pools:    pl,
		// The bills and projects areas show changes too, measured in the pools area's one cache.
		Bills:    bills.New(c, store, pl.Changes()),
		Agent:    agent.New(c, store),
		People:   people.New(c, store),
		Services: services.New(c, store),
	}
}
