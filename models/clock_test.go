package models

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// Every time the store stamps by itself comes from its clock, never the wall clock: the demo's
// clock runs fast, and a wall-clock row among demo rows reads as weeks out of place.
func TestStoreStampsWithItsClock(t *testing.T) {
	at := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "k.db"), Options{Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v schemaVersion
	if err := s.db.Order("version DESC").Take(&v).Error; err != nil {
		t.Fatal(err)
	}
	if !v.AppliedAt.Equal(at) {
		t.Errorf("migration applied at %v, want the store's clock %v", v.AppliedAt, at)
	}
	p := Project{Name: "stamped"} // CreatedAt left for GORM to fill
	if err := s.db.Create(&p).Error; err != nil {
		t.Fatal(err)
	}
	if !p.CreatedAt.Equal(at) {
		t.Errorf("GORM stamped %v, want the store's clock %v", p.CreatedAt, at)
	}
}
