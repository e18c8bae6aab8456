package scheduler

// gshare is one project's guaranteed share of one spec (every region of it), or a booking
// of cards of it (see Booking), and the cards of that spec the project holds.
type gshare struct {
	project    string
	guaranteed int32
	held       int32
	booked     bool
	starts     int64  // a booking's window start, as an offset from now; ≤ 0 once open
	region     string // a booking's region; "" for every region of the spec
}

// initGuarantees collects the guaranteed shares and the bookings per spec and counts the
// cards each project already holds on that spec.
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
	d.initBookings()
	if d.guar == nil {
		return
	}
	for i := range d.snap.Running {
		r := &d.snap.Running[i]
		for _, g := range r.GPUIDs {
			if s, ok := d.f.specOfGPU[g]; ok {
				d.holdGuaranteedBy(r.Project, s, 1)
			}
		}
	}
}

// holdGuaranteed counts g more cards of place s held by the queued project p.
func (d *decider) holdGuaranteed(p, s, g int32) {
	if d.guar != nil && s >= 0 {
		d.holdGuaranteedBy(d.q.projName[p], s, g)
	}
}

// holdGuaranteedBy counts g more cards of place s held by the named project against its
// guarantees and bookings of the place's spec (those in another region left out).
func (d *decider) holdGuaranteedBy(project string, s, g int32) {
	shares := d.guar[d.f.specs[s].nameIdx]
	for k := range shares {
		if shares[k].project == project && (shares[k].region == "" || shares[k].region == d.f.specs[s].region) {
			shares[k].held += g
		}
	}
}
