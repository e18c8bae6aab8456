package scheduler

// gshare is one project's guaranteed share of one spec (every region of it) and the cards of
// that spec it holds.
type gshare struct {
	project    string
	guaranteed int32
	held       int32
}

// initGuarantees collects the guaranteed shares per spec and counts the cards each project
// already holds on that spec.
func (d *decider) initGuarantees() {
	// Projects with nothing queued hold guarantees too, so walk the quotas, not the queue.
	for name, qs := range d.snap.Quotas {
		if len(qs.Guaranteed) == 0 {
			continue
		}
		for spec, g := range qs.Guaranteed {
			places, ok := d.f.byName[spec]
			if !ok || g <= 0 {
				continue
			}
			s := d.f.specs[places[0]].nameIdx
			if d.guar == nil {
				d.guar = make([][]gshare, len(d.f.names))
			}
			d.guar[s] = append(d.guar[s], gshare{project: name, guaranteed: int32(g)})
		}
	}
	if d.guar == nil {
		return
	}
	for i := range d.snap.Running {
		r := &d.snap.Running[i]
		for _, g := range r.GPUIDs {
			if s, ok := d.f.specOfGPU[g]; ok {
				d.holdGuaranteedBy(r.Project, d.f.specs[s].nameIdx, 1)
			}
		}
	}
}

// holdGuaranteed counts g more cards of place s held by the queued project p.
func (d *decider) holdGuaranteed(p, s, g int32) {
	if d.guar != nil && s >= 0 {
		d.holdGuaranteedBy(d.q.projName[p], d.f.specs[s].nameIdx, g)
	}
}

// holdGuaranteedBy counts g more cards of the spec named by index s held by the named
// project against its guarantee.
func (d *decider) holdGuaranteedBy(project string, s, g int32) {
	for k := range d.guar[s] {
		if d.guar[s][k].project == project {
			d.guar[s][k].held += g
		}
	}
}

// keepGuarantees keeps of specs those where a long task of project p taking g cards leaves
// enough free cards for the unmet guaranteed shares of the other projects on that spec, and
// returns them (reusing specs' array). A guarantee holds back cards of its own spec only.
// Short tasks may borrow guaranteed cards: they give them back within the short lane's
// runtime limit, so they are never narrowed.
func (d *decider) keepGuarantees(p, g int32, specs []int32) []int32 {
	n := 0
	for _, s := range specs {
		owed := int32(0)
		name := d.f.specs[s].nameIdx
		for _, gs := range d.guar[name] {
			if gs.project != d.q.projName[p] && gs.held < gs.guaranteed {
				owed += gs.guaranteed - gs.held
			}
		}
		free := int32(0)
		if owed > 0 {
			for _, o := range d.f.byName[d.f.names[name]] {
				free += d.f.specs[o].freeGPUs
			}
		}
		if owed == 0 || free-g >= owed {
			specs[n] = s
			n++
		}
	}
	return specs[:n]
}
