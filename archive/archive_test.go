package archive_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"kashi/archive"
	"kashi/archive/s3test"
	"kashi/billing"
	"kashi/models"
	"kashi/models/modelstest"
)

// t0 is a Monday morning in March 2026 (UTC); afterMarch just after March ends in Shanghai.
var (
	t0         = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	afterMarch = time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	shanghai   = mustLoad("Asia/Shanghai")
)

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// archiverOf is an archiver of s into the gateway's bucket under the prefix "kashi", without
// backups.
func archiverOf(t *testing.T, s *models.Store, g *s3test.Gateway) (*archive.Archiver, *archive.Store) {
	t.Helper()
	st, err := archive.Open(archive.Config{Endpoint: g.Endpoint, Region: "us-east-1", Bucket: g.Bucket, Prefix: "kashi",
		AccessKey: s3test.AccessKey, SecretKey: s3test.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	return archive.New(s, st, archive.Options{Location: shanghai}), st
}

// issueMarch runs a 2-card task of alpha for two hours in March and issues alpha's bill.
func issueMarch(t *testing.T, s *models.Store) models.IssuedBill {
	t.Helper()
	ctx := context.Background()
	node := modelstest.Node("n1").A100s(4).Register(t, s, t0.Add(-time.Hour))
	task := modelstest.Task("alpha", "train").GPUs(2).Create(t, s, t0)
	modelstest.Run(t, s, task, node, t0)
	end := t0.Add(2 * time.Hour)
	if err := s.ReportTaskStatus(ctx, node.ID, task.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPrice(ctx, models.Price{Spec: "A100-80G", FromMonth: "2026-01", RateFen: 1500, OverflowRateFen: 2500}, t0); err != nil {
		t.Fatal(err)
	}
	b, err := billing.Issue(ctx, s, task.ProjectID, "2026-03", "finance", afterMarch)
	if err != nil {
		t.Fatalf("Issue = %v", err)
	}
	ib, err := s.IssuedBillOf(ctx, b.ProjectID, "2026-03")
	if err != nil {
		t.Fatal(err)
	}
	return ib
}

// pass collects and uploads at now, and fails the test on any error.
func pass(t *testing.T, a *archive.Archiver, now time.Time) {
	t.Helper()
	ctx := context.Background()
	if _, err := a.Collect(ctx, now); err != nil {
		t.Fatalf("Collect = %v", err)
	}
	if _, failed, err := a.Upload(ctx, now); failed != 0 || err != nil {
		t.Fatalf("Upload = %d failed, %v", failed, err)
	}
}

// object reads the object under the bucket's key (the prefix included).
func object(t *testing.T, g *s3test.Gateway, key string) ([]byte, minio.ObjectInfo) {
	t.Helper()
	ctx := context.Background()
	o, err := g.Client().GetObject(ctx, g.Bucket, key, minio.GetObjectOptions{})
	if err != nil {
		t.Fatalf("GetObject(%s) = %v", key, err)
	}
	defer o.Close()
	info, err := o.Stat()
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), info
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestIssuedMonthLeavesItsThreeFiles(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		g := s3test.Start(t)
		ib := issueMarch(t, s)
		a, _ := archiverOf(t, s, g)
		pass(t, a, afterMarch)

		// The JSON is the body frozen at issue: its SHA-256 is the one Kashi recorded.
		base := fmt.Sprintf("kashi/bills/2026/03/alpha-2026-03-b%d", ib.ID)
		body, info := object(t, g, base+".json")
		if got := sum(body); got != ib.SHA256 || info.UserMetadata["Sha256"] != ib.SHA256 {
			t.Errorf("%s.json: SHA-256 %s (metadata %q), want the recorded %s", base, got, info.UserMetadata["Sha256"], ib.SHA256)
		}
		// The CSV and the XLSX are what a download of the issued bill gives, byte for byte.
		frozen, err := billing.Frozen(ib)
		if err != nil {
			t.Fatal(err)
		}
		var csv, xlsx bytes.Buffer
		if err := billing.WriteCSV(&csv, []billing.Bill{frozen}); err != nil {
			t.Fatal(err)
		}
		if err := billing.WriteXLSX(&xlsx, []billing.Bill{frozen}, billing.EnglishSheets); err != nil {
			t.Fatal(err)
		}
		for ext, want := range map[string][]byte{"csv": csv.Bytes(), "xlsx": xlsx.Bytes()} {
			got, info := object(t, g, base+"."+ext)
			if sum(got) != sum(want) || info.UserMetadata["Sha256"] != sum(want) {
				t.Errorf("%s.%s: SHA-256 %s (metadata %q), want the download's %s", base, ext, sum(got), info.UserMetadata["Sha256"], sum(want))
			}
		}
		// The month's ledger lines: one per line of the bill.
		lines, _ := object(t, g, fmt.Sprintf("kashi/ledger/2026/03/alpha-2026-03-b%d.jsonl", ib.ID))
		var first struct {
			Project string `json:"project"`
			Month   string `json:"month"`
			TaskID  int64  `json:"task_id"`
		}
		if n := bytes.Count(lines, []byte("\n")); n != len(frozen.Lines) || n == 0 {
			t.Fatalf("ledger: %d lines, want the bill's %d", n, len(frozen.Lines))
		}
		if err := json.Unmarshal(lines[:bytes.IndexByte(lines, '\n')], &first); err != nil || first.Project != "alpha" ||
			first.Month != "2026-03" || first.TaskID != frozen.Lines[0].TaskID {
			t.Errorf("ledger's first line = %+v, %v", first, err)
		}

		// A second pass finds nothing new, and verify finds every bill with its checksum.
		if n, err := a.Collect(context.Background(), afterMarch.Add(time.Minute)); err != nil || n != 0 {
			t.Errorf("Collect again = %d, %v; want nothing new", n, err)
		}
		_, st := archiverOf(t, s, g)
		c, err := archive.Verify(context.Background(), s, st)
		if err != nil || !c.OK() || c.Checked != 1 {
			t.Errorf("Verify = %v, %v; want 1 bill checked, all found", c, err)
		}
	})
}

func TestVerifyFindsABillChangedInTheStore(t *testing.T) {
	g := s3test.Start(t)
	s := modelstest.SQLite(t, models.Options{})
	ib := issueMarch(t, s)
	a, st := archiverOf(t, s, g)
	pass(t, a, afterMarch)
	// Someone with the bucket's keys writes another body over the bill (a new version).
	key := fmt.Sprintf("kashi/bills/2026/03/alpha-2026-03-b%d.json", ib.ID)
	forged := []byte(strings.Replace(ib.Body, `"total_fen":`, `"total_fen":1`, 1))
	if _, err := g.Client().PutObject(context.Background(), g.Bucket, key, bytes.NewReader(forged), int64(len(forged)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	c, err := archive.Verify(context.Background(), s, st)
	if err != nil || c.OK() || !slices.Equal(c.Different, []string{strings.TrimPrefix(key, "kashi/")}) {
		t.Errorf("Verify = %+v, %v; want %s different", c, err, key)
	}
}

func TestTemplateSavedThreeTimesLeavesThreeVersions(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		g := s3test.Start(t)
		ctx := context.Background()
		modelstest.Node("n1").A100s(8).Register(t, s, t0.Add(-time.Hour))
		p, err := s.EnsureProject(ctx, "vision", t0)
		if err != nil {
			t.Fatal(err)
		}
		body := models.TemplateBody{GPUs: 2, Queue: models.QueueLong, Priority: models.PriorityNormal,
			Command: []string{"python", "train.py"}, MaxRuntimeS: 3600}
		tpl, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: "train", Body: body}, "lee", models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		for i, by := range []string{"mei", "lee"} {
			body.GPUs *= 2
			if _, err := s.UpdateTemplate(ctx, tpl.ID, models.NewTemplate{Name: "train", Body: body}, by, models.DefaultTaskLimits, t0.Add(time.Duration(i+1)*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		a, _ := archiverOf(t, s, g)
		pass(t, a, t0.Add(3*time.Hour))

		var keys []string
		for o := range g.Client().ListObjects(ctx, g.Bucket, minio.ListObjectsOptions{Prefix: "kashi/templates/", Recursive: true}) {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			keys = append(keys, o.Key)
		}
		if len(keys) != 3 {
			t.Fatalf("templates archived: %v, want three versions", keys)
		}
		for i, want := range []struct {
			by   string
			gpus int
		}{{"lee", 2}, {"mei", 4}, {"lee", 8}} {
			b, _ := object(t, g, keys[i])
			var v struct {
				Template string `json:"template"`
				Version  int    `json:"version"`
				By       string `json:"by"`
				Body     struct {
					GPUs int `json:"gpus"`
				} `json:"body"`
				Changes []models.FieldChange `json:"changes"`
			}
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			if v.Template != "train" || v.Version != i+1 || v.By != want.by || v.Body.GPUs != want.gpus || (i > 0) != (len(v.Changes) == 1) {
				t.Errorf("%s = %+v; want version %d by %s with %d GPUs and what it changed", keys[i], v, i+1, want.by, want.gpus)
			}
		}
	})
}

func TestUploadDuringAnOutageArrivesLater(t *testing.T) {
	g := s3test.Start(t)
	s := modelstest.SQLite(t, models.Options{})
	ctx := context.Background()
	a, _ := archiverOf(t, s, g)

	g.Stop()
	ib := issueMarch(t, s) // the issue itself does not wait for the store
	if _, err := a.Collect(ctx, afterMarch); err != nil {
		t.Fatalf("Collect = %v", err)
	}
	if n, failed, err := a.Upload(ctx, afterMarch); n != 0 || failed == 0 || err != nil {
		t.Fatalf("Upload while the store is out = %d arrived, %d failed, %v; want every one failed", n, failed, err)
	}
	box, err := s.ArchiveQueue(ctx, 100)
	if err != nil || box.Failing == 0 || box.Failing != int64(len(box.Waiting)) || box.Pending != 0 || box.Waiting[0].Attempts != 1 ||
		!strings.Contains(box.Waiting[0].LastError, "connection refused") {
		t.Fatalf("ArchiveQueue = %d failing, %d pending, %v; want every file failing once, with why", box.Failing, box.Pending, err)
	}
	next := box.Waiting[0].NextAt
	if !next.After(afterMarch) || next.After(afterMarch.Add(30*time.Second)) {
		t.Errorf("next attempt at %s, want within the first back-off of 30 s", next)
	}
	// Not due yet: nothing is tried.
	if n, failed, err := a.Upload(ctx, afterMarch.Add(time.Second)); n+failed != 0 || err != nil {
		t.Errorf("Upload before the back-off = %d, %v; want nothing tried", n, err)
	}

	g.Resume()
	if n, _, err := a.Upload(ctx, afterMarch.Add(time.Minute)); n != int(box.Failing) || err != nil {
		t.Fatalf("Upload after the outage = %d, %v; want the %d files", n, err, box.Failing)
	}
	body, _ := object(t, g, fmt.Sprintf("kashi/bills/2026/03/alpha-2026-03-b%d.json", ib.ID))
	if sum(body) != ib.SHA256 {
		t.Errorf("the bill arrived with SHA-256 %s, want %s", sum(body), ib.SHA256)
	}
	failed := box.Failing
	if box, err = s.ArchiveQueue(ctx, 100); err != nil || box.Failing+box.Pending != 0 || box.Arrived != failed {
		t.Errorf("ArchiveQueue after = %d failing, %d pending, %d arrived, %v; want all %d arrived", box.Failing, box.Pending, box.Arrived, err, failed)
	}
}
