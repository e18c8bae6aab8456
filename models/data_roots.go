package models

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
)

// dataRoots holds the directories path data checks may look under; none until SetDataRoots.
type dataRoots struct{ dirs atomic.Pointer[[]string] }

// SetDataRoots sets the directories the readiness checks may look under (--data-root). A
// path the checks would look at must be inside one: a task's data check path, and its path
// data locations when they are what it waits on. Without roots the server checks no paths,
// so such a task is refused at submit (a FieldError on data_check or
// data_locations.<region>) rather than stored to wait on a check that never runs.
func (s *Store) SetDataRoots(roots []string) {
	dirs := slices.Clone(roots)
	s.roots.dirs.Store(&dirs)
}

// DataRoots are the directories path data checks may look under (SetDataRoots); none when
// the server checks no paths.
func (s *Store) DataRoots() []string {
	if p := s.roots.dirs.Load(); p != nil {
		return slices.Clone(*p)
	}
	return nil
}

// InDataRoots reports whether the clean absolute path p is one of roots or below one.
func InDataRoots(roots []string, p string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(filepath.Clean(r), p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// checkDataPaths refuses the paths a task waiting for its data would have the readiness
// checks look at that they cannot: its data check's path, else its path data locations (the
// checks look there region by region). Any such path is refused on a server without data roots
// (naming data_check, or the location), one outside the roots otherwise. A task whose data is
// ready waits on no check: its data check then only says where the data is, and its locations
// are only passed on.
func (s *Store) checkDataPaths(nt NewTask) error {
	roots := s.DataRoots()
	switch {
	case nt.DataReady || nt.DataCheck.URL != "":
		return nil
	case nt.DataCheck.Path != "":
		return checkDataPath(roots, "data_check", nt.DataCheck.Path)
	}
	for _, region := range slices.Sorted(maps.Keys(nt.DataLocations)) {
		if loc := nt.DataLocations[region]; filepath.IsAbs(loc) {
			if err := checkDataPath(roots, "data_locations."+region, loc); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDataPath refuses the absolute path p, given as field, unless it is inside roots: with no
// roots at all the field itself is refused, since the server checks no paths.
func checkDataPath(roots []string, field, p string) error {
	if len(roots) == 0 {
		return fieldErr(field, "this server checks no paths (no --data-root is set): give a url instead, or submit when the data is ready")
	}
	if !InDataRoots(roots, filepath.Clean(p)) {
		if field == "data_check" {
			field = "data_check.path"
		}
		return fieldErr(field, "%q is outside the data roots %s, where the server checks paths", truncate(p, 200), strings.Join(roots, ", "))
	}
	return nil
}
