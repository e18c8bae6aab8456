package models

import (
	"testing"
	"time"
)

func TestPgArrayText(t *testing.T) {
	v, _ := pgInts{1, -2, 9007199254740993}.Value()
	if v != "{1,-2,9007199254740993}" {
		t.Errorf("pgInts = %v", v)
	}
	if v, _ := (pgInts{}).Value(); v != "{}" {
		t.Errorf("empty pgInts = %v", v)
	}
	at := time.Date(2026, 3, 2, 17, 0, 0, 123456789, time.FixedZone("CST", 8*3600))
	v, _ = pgTimes{&at, nil}.Value()
	if want := `{"2026-03-02T09:00:00.123456Z",NULL}`; v != want {
		t.Errorf("pgTimes = %v, want %v (UTC, cut to the microsecond)", v, want)
	}
}
