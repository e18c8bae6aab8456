// A task's state and cards as the store holds them, for the reservation scenarios.

package webtest

import (
	"context"
	"slices"
)

// TaskState is the task's state in the store.
func (s *Server) TaskState(id int64) string {
	s.Tb.Helper()
	tk, err := s.Store.TaskByID(context.Background(), id)
	if err != nil {
		s.Tb.Fatalf("Task(%d): %v", id, err)
	}
	return tk.State
}

// TaskGPUs are the cards the task holds, by id.
func (s *Server) TaskGPUs(id int64) []int64 {
	s.Tb.Helper()
	as, err := s.Store.OpenAllocations(context.Background())
	if err != nil {
		s.Tb.Fatal(err)
	}
	var out []int64
	for _, a := range as {
		if a.TaskID == id {
			out = append(out, a.GPUID)
		}
	}
	slices.Sort(out)
	return out
}
