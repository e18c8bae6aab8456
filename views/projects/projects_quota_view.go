package projects

// usePct is used as a whole percentage of limit; 0 when there is no limit.
func usePct(used, limit int) int {
	if limit <= 0 {
		return 0
	}
	return used * 100 / limit
}
