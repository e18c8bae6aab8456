package scaler

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// tableDefaults is WithDefaults as the pool settings table defines it, by reflection over
// every field: what the table gives the setting it comes from (PolicyOf), for Step's value
// (max_in_flight follows it). WithDefaults spells the fields out so as not to reflect at
// every tick; this finds a field it forgets.
func tableDefaults(p Policy) Policy {
	def := reflect.ValueOf(PolicyOf(models.PoolConfig{Step: p.Step}.WithDefaults()))
	v := reflect.ValueOf(&p).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() != reflect.Struct {
			if f.CanInt() && f.Int() <= 0 || f.CanFloat() && f.Float() <= 0 {
				f.Set(def.Field(i))
			}
		}
	}
	r, rdef := reflect.ValueOf(&p.Reclaim).Elem(), def.FieldByName("Reclaim")
	for i := range r.NumField() {
		if f := r.Field(i); f.CanInt() && f.Int() <= 0 {
			f.Set(rdef.Field(i))
		}
	}
	return p
}

// TestPolicyWithDefaultsIsTheTable: each number of a policy, zero or negative while every
// other is set (and every other left zero), takes the table's default, the step's for
// the in-flight cap.
func TestPolicyWithDefaultsIsTheTable(t *testing.T) {
	var full Policy
	v := reflect.ValueOf(&full).Elem()
	setAll := func(v reflect.Value) {
		for i := range v.NumField() {
			switch f := v.Field(i); {
			case f.CanInt():
				f.SetInt(int64(i + 2))
			case f.CanFloat():
				f.SetFloat(float64(i + 2))
			}
		}
	}
	setAll(v)
	setAll(v.FieldByName("Reclaim"))
	type at struct {
		reclaim bool
		i       int
	}
	var fields []at
	for i := range v.NumField() {
		if v.Field(i).Kind() != reflect.Struct {
			fields = append(fields, at{false, i})
		}
	}
	for i := range v.FieldByName("Reclaim").NumField() {
		fields = append(fields, at{true, i})
	}
	for _, base := range []Policy{full, {}, {Step: 6}} {
		for _, fa := range fields {
			for _, x := range []int64{0, -1} {
				p := base
				s := reflect.ValueOf(&p).Elem()
				if fa.reclaim {
					s = s.FieldByName("Reclaim")
				}
				f := s.Field(fa.i)
				switch {
				case f.CanInt():
					f.SetInt(x)
				case f.CanFloat():
					f.SetFloat(float64(x))
				default:
					continue
				}
				if diff := cmp.Diff(tableDefaults(p), p.WithDefaults()); diff != "" {
					t.Errorf("%+v.WithDefaults() (-table +got):\n%s", p, diff)
				}
			}
		}
	}
}

// TestScaleTickAllocations guards the replay's speed (BENCHMARKS.md, Replay): an elastic
// replay makes one DecideScale call every 30 s of virtual time, 87,000 for openb, so what a
// tick costs for nothing multiplies. Filling a policy's defaults by reflection from the pool
// settings table at every call made openb's elastic replay 4.6 times slower (issue #37):
// about 130 allocations per pool per tick, 76 % of the replay's CPU. The check counts
// allocations, not time: the count is the same on a loaded 2-core machine as on an idle
// one, so it cannot flake, while a timed bound either would or would be too loose to see
// this regression. Filling defaults allocates nothing; one tick of a busy pool that grows
// allocates 18 times, under tickAllocs (178 with the reflection).
func TestScaleTickAllocations(t *testing.T) {
	for name, f := range map[string]func(){
		"Policy.WithDefaults":        func() { _ = Policy{MaxNodes: 8}.WithDefaults() },
		"ReclaimPolicy.WithDefaults": func() { _ = ReclaimPolicy{}.WithDefaults() },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times, want 0", name, n)
		}
	}
	snap := scalePool().policy(func(p *Policy) { p.MaxNodes = 8 }).
		nodes(busy(1, task(11, time.Hour, 0)), busy(2, task(12, 2*time.Hour, 0)), idleNode(3, time.Minute)).
		demand(wait(21, 8, 3*time.Minute), wait(22, 4, 30*time.Second)).
		memory(flat(60, 10*time.Minute)...).snap()
	const tickAllocs = 36
	if n := testing.AllocsPerRun(100, func() { DecideScale(snap, st0) }); n > tickAllocs {
		t.Errorf("one DecideScale tick of one pool allocates %v times, want at most %d", n, tickAllocs)
	}
}
