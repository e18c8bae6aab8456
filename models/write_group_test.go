package models_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestGroupedWritesStandAlone: writes committed in one group are each rolled back alone when
// they fail or panic, a write whose caller gave up before its group began is not run, and
// the others commit, on both databases.
func TestGroupedWritesStandAlone(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
		var ids []int64
		for _, name := range []string{"a", "b", "c", "d", "e"} {
			p, err := s.EnsureProject(ctx, name, t0)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		rename := func(i int, then func() error) func(tx *gorm.DB) error {
			return func(tx *gorm.DB) error {
				if err := tx.Model(&models.Project{}).Where("id = ?", ids[i]).Update("name", "renamed-"+string(rune('a'+i))).Error; err != nil {
					return err
				}
				return then()
			}
		}
		refused := errors.New("refused after writing")
		gone, cancel := context.WithCancel(ctx)
		cancel()
		errs := models.CommitWritesTogether(s,
			[]context.Context{ctx, ctx, ctx, ctx, gone},
			[]func(tx *gorm.DB) error{
				rename(0, func() error { return nil }),
				rename(1, func() error { return refused }),
				rename(2, func() error { panic("a bug") }),
				rename(3, func() error { return nil }),
				rename(4, func() error { return nil }),
			})
		if errs[0] != nil || errs[3] != nil {
			t.Errorf("the good writes answered %v and %v, want nil", errs[0], errs[3])
		}
		if !errors.Is(errs[1], refused) {
			t.Errorf("the refused write answered %v, want its own error", errs[1])
		}
		if errs[2] == nil || !strings.Contains(errs[2].Error(), "a bug") {
			t.Errorf("the panicking write answered %v, want its panic as an error", errs[2])
		}
		if !errors.Is(errs[4], context.Canceled) {
			t.Errorf("the write whose caller gave up answered %v, want context.Canceled", errs[4])
		}
		var names []string
		if err := models.DB(s).Model(&models.Project{}).Where("id IN ?", ids).Order("id").Pluck("name", &names).Error; err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(names, ","), "renamed-a,b,c,renamed-d,e"; got != want {
			t.Errorf("projects after the group = %s, want %s", got, want)
		}
	})
}

// TestGroupedWritesGiveUpTheWriter: on SQLite a group of writes that runs past
// models.WriteTurn goes on in a new transaction, so that the writes queued meanwhile for the
// one writer (samples, submits) go between; on Postgres, which has no one writer, the group
// stays one transaction. Every write commits and is answered. (At 4,096 agents a group of
// task ends held SQLite's writer up to 79 ms.)
func TestGroupedWritesGiveUpTheWriter(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
		var ids []int64
		for _, name := range []string{"a", "b", "c"} {
			p, err := s.EnsureProject(ctx, name, t0)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		txOf := make([]string, len(ids))
		write := func(i int, takes time.Duration) func(tx *gorm.DB) error {
			return func(tx *gorm.DB) error {
				txOf[i] = fmt.Sprintf("%p", tx.Statement.ConnPool)
				time.Sleep(takes) // a write that takes this long
				return tx.Model(&models.Project{}).Where("id = ?", ids[i]).Update("name", fmt.Sprintf("renamed-%d", i)).Error
			}
		}
		errs := models.CommitWritesTogether(s, []context.Context{ctx, ctx, ctx},
			[]func(tx *gorm.DB) error{write(0, models.WriteTurn), write(1, 0), write(2, 0)})
		for i, err := range errs {
			if err != nil {
				t.Errorf("write %d answered %v", i, err)
			}
		}
		if split := models.IsPostgres(s) == (txOf[0] == txOf[1]); !split {
			t.Errorf("the write after one that took the whole turn ran in transaction %s, the one before in %s; want a new one on SQLite alone",
				txOf[1], txOf[0])
		}
		var n int64
		if err := models.DB(s).Model(&models.Project{}).Where("id IN ? AND name LIKE ?", ids, "renamed-%").Count(&n).Error; err != nil || n != 3 {
			t.Errorf("projects renamed = %d (%v), want 3", n, err)
		}
	})
}
