package replay

// placeFIFO starts waiting jobs strictly in order while the head fits (see PolicyFIFO).
func (s *sim) placeFIFO() {
	for len(s.pending) > 0 {
		j := s.pending[0]
		gpus := s.fitFIFO(&s.jobs[j])
		if gpus == nil {
			return
		}
		s.pending = s.pending[1:]
		s.start(j, gpus)
	}
}

// fitFIFO picks the cards for job j now, or nil when it does not fit: on the first ready
// node by id (of its spec, if it asks one) with g free cards, its lowest free ones; for a
// job larger than every such node, the first wholly free nodes by id, all their cards.
func (s *sim) fitFIFO(j *Job) []int64 {
	largest := 0
	for _, n := range s.nodes {
		if n.state == nodeReady && s.specOK(n, j) {
			largest = max(largest, len(n.held))
		}
	}
	var gpus []int64
	if j.GPUs <= largest {
		for _, n := range s.nodes {
			if n.state != nodeReady || n.free < j.GPUs || !s.specOK(n, j) {
				continue
			}
			for idx, h := range n.held {
				if !h && len(gpus) < j.GPUs {
					gpus = append(gpus, gpuID(n.id, idx))
				}
			}
			return gpus
		}
		return nil
	}
	for _, n := range s.nodes {
		if n.state != nodeReady || n.free < len(n.held) || !s.specOK(n, j) {
			continue
		}
		for idx := range n.held {
			gpus = append(gpus, gpuID(n.id, idx))
		}
		if len(gpus) >= j.GPUs {
			return gpus
		}
	}
	return nil
}

// specOK reports whether node n is of the spec job j asks for (any, when it asks none).
func (s *sim) specOK(n *node, j *Job) bool {
	return j.Spec == "" || s.pools[n.pool].Spec == j.Spec
}
