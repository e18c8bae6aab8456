package models

import (
	"time"
	"unicode/utf8"
)

// maxOutputUnit bounds the name of a task's output unit.
const maxOutputUnit = 50

// outputOf is the columns a report's output units and checkpoint set, checked: none when the
// report carries neither. A checkpoint in the future is taken as now; its place comes with
// its time (a checkpoint without a place clears the last one's).
func outputOf(r TaskReport, now time.Time) (map[string]any, error) {
	if err := checkRange("output_units", r.OutputUnits, 0, MaxOutputUnits); err != nil {
		return nil, err
	}
	if !utf8.ValidString(r.OutputUnit) || len(r.OutputUnit) > maxOutputUnit {
		return nil, fieldErr("output_unit", "must be valid UTF-8 of at most %d bytes", maxOutputUnit)
	}
	set := map[string]any{}
	if r.OutputUnits > 0 || r.OutputUnit != "" {
		set["output_units"], set["output_unit"] = r.OutputUnits, r.OutputUnit
	}
	if err := checkCheckpoint(r.Checkpoint); err != nil {
		return nil, err
	}
	if r.CheckpointAt != nil && !r.CheckpointAt.IsZero() {
		at := UTC(*r.CheckpointAt)
		if at.After(now) {
			at = now
		}
		set["last_checkpoint_at"], set["last_checkpoint"] = at, r.Checkpoint
	}
	return set, nil
}
