package webtest

// Est sets the task's estimate in card-hours.
func (b *taskB) Est(h float64) *taskB { b.Nt.EstGPUHours = h; return b }
