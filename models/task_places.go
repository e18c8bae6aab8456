package models

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode"
)

// maxPlaces bounds the specs and the regions one task may accept.
const maxPlaces = 16

// checkPlaces checks the specs and regions a task accepts and that its cards fit: with
// Specs, Spec must be empty or one of them, every spec must have a pool, and the GPUs must
// fit the largest pool of one of them; without, as Spec alone. Regions are names; a region
// no pool is in leaves the task waiting, as a spec without free cards does.
func (s *Store) checkPlaces(r *submitReads, nt NewTask) error {
	if len(nt.Regions) > maxPlaces {
		return fieldErr("regions", "at most %d regions", maxPlaces)
	}
	for _, r := range nt.Regions {
		if err := checkName("regions", r, 100); err != nil {
			return err
		}
		if strings.ContainsFunc(r, unicode.IsControl) {
			return fieldErr("regions", "must not contain control characters")
		}
	}
	if len(nt.Specs) == 0 {
		return s.checkCapacity(r, nt.Spec, nt.GPUs)
	}
	if len(nt.Specs) > maxPlaces {
		return fieldErr("specs", "at most %d specs", maxPlaces)
	}
	for i, spec := range nt.Specs {
		if spec == "" {
			return fieldErr("specs", "names an empty spec; leave specs out for any")
		}
		for _, other := range nt.Specs[:i] {
			if other == spec {
				return fieldErr("specs", "names %q twice", spec)
			}
		}
	}
	if nt.Spec != "" && !slices.Contains(nt.Specs, nt.Spec) {
		return fieldErr("spec", "%q is not one of specs", nt.Spec)
	}
	var fits, last error = errors.New("no spec"), nil
	for _, spec := range nt.Specs {
		err := s.checkCapacity(r, spec, nt.GPUs)
		var fe *FieldError
		switch {
		case err == nil:
			fits = nil
		case errors.As(err, &fe) && fe.Field == "spec":
			fe.Field = "specs"
			return fe
		default:
			last = err
		}
	}
	if fits != nil {
		return last
	}
	return nil
}

// nameList is names as the store keeps them: a JSON list, "" for none.
func nameList(names []string) string {
	if len(names) == 0 {
		return ""
	}
	b, _ := json.Marshal(names) // strings; never fails
	return string(b)
}

// names reads a nameList.
func names(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	json.Unmarshal([]byte(s), &out) // written by the store; always decodes
	return out
}

// SpecList is the specs the task accepts besides Spec; nil for Spec alone.
func (t Task) SpecList() []string { return names(t.Specs) }

// RegionList is the regions the task accepts; nil for any.
func (t Task) RegionList() []string { return names(t.Regions) }

// DataRegion is the region of the task's data check; "" for none.
func (t Task) DataRegion() string {
	if t.DataCheck == "" {
		return ""
	}
	var dc DataCheck
	json.Unmarshal([]byte(t.DataCheck), &dc) // written by the store; always decodes
	return dc.Region
}
