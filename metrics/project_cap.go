package metrics

import (
	"cmp"
	"slices"
)

// OtherProject is the project label of the projects past the cap.
const OtherProject = "other"

// DefaultMaxProjects is how many projects get their own label by default.
const DefaultMaxProjects = 100

// byProject is a metric family's values: by project, then by the rest of its labels.
type byProject map[string]map[rest]float64

// rest is the label values after the project (unused ones empty).
type rest [2]string

// add adds v to the series of project and r.
func (b byProject) add(project string, r rest, v float64) {
	if b[project] == nil {
		b[project] = map[rest]float64{}
	}
	b[project][r] += v
}

// capped keeps the max projects with the largest sums of values (ties by name) and folds the
// others into OtherProject, so that a family has at most max+1 projects whatever their count.
func (b byProject) capped(max int) byProject {
	if len(b) <= max {
		return b
	}
	type ranked struct {
		name string
		sum  float64
	}
	rs := make([]ranked, 0, len(b))
	for name, series := range b {
		var sum float64
		for _, v := range series {
			sum += v
		}
		rs = append(rs, ranked{name, sum})
	}
	slices.SortFunc(rs, func(x, y ranked) int {
		return cmp.Or(cmp.Compare(y.sum, x.sum), cmp.Compare(x.name, y.name))
	})
	out := make(byProject, max+1)
	for i, r := range rs {
		name := r.name
		if i >= max || name == OtherProject {
			name = OtherProject
		}
		for k, v := range b[r.name] {
			out.add(name, k, v)
		}
	}
	return out
}
