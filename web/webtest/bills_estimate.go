// A task builder's estimate, for the bills' estimate tests.

package webtest

// Est sets the task's estimate in card-hours.
func (b *TaskB) Est(h float64) *TaskB { b.Nt.EstGPUHours = h; return b }
