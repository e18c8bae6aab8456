package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestAppendTaskLogs(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n, task := placedTask(t, s)
		other := registerNode(t, s, "n2", "a100", 1)
		steps := []struct {
			name   string
			node   int64
			pieces []models.LogPiece
			want   string
			end    int64
		}{
			{"first lines", n.ID, []models.LogPiece{{task.ID, 0, "epoch 1\n"}}, "epoch 1\n", 8},
			{"a resend changes nothing", n.ID, []models.LogPiece{{task.ID, 0, "epoch 1\n"}}, "epoch 1\n", 8},
			{"an overlap adds the new part", n.ID, []models.LogPiece{{task.ID, 0, "epoch 1\nepoch 2\n"}}, "epoch 1\nepoch 2\n", 16},
			{"a gap is marked", n.ID, []models.LogPiece{{task.ID, 30, "epoch 9\n"}}, "epoch 1\nepoch 2\n…\nepoch 9\n", 38},
			{"another node's piece is ignored", other.ID, []models.LogPiece{{task.ID, 38, "forged\n"}}, "epoch 1\nepoch 2\n…\nepoch 9\n", 38},
		}
		for _, st := range steps {
			if err := s.AppendTaskLogs(ctx, st.node, st.pieces, t0); err != nil {
				t.Fatalf("%s: AppendTaskLogs = %v", st.name, err)
			}
			l, err := s.TaskLogTail(ctx, task.ID)
			if err != nil || l.Tail != st.want || l.EndOffset != st.end {
				t.Errorf("%s: tail = %q at %d, %v; want %q at %d", st.name, l.Tail, l.EndOffset, err, st.want, st.end)
			}
		}
		// The tail keeps the last 64 KiB, cut at a line.
		line := strings.Repeat("y", 99) + "\n"
		if err := s.AppendTaskLogs(ctx, n.ID, []models.LogPiece{{task.ID, 38, strings.Repeat(line, 700)}}, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		l, _ := s.TaskLogTail(ctx, task.ID)
		if len(l.Tail) > models.MaxTaskLogBytes || !strings.HasPrefix(l.Tail, "yyy") || l.EndOffset != 38+70000 {
			t.Errorf("long tail = %d bytes starting %q, end %d; want ≤ 64 KiB from a line start, end %d", len(l.Tail), l.Tail[:5], l.EndOffset, 38+70000)
		}
	})
}
