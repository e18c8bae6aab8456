package models_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// Migration 35 leaves a machine id that nodes not removed shared with the first of them and
// clears it on the others, so that the index that makes a machine id one node's can be made;
// a removed node keeps its own. The GPUs there were are their nodes', listed.
func TestMachineIDMigrationKeepsTheFirstNode(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kashi.db")
	s, err := models.Open(ctx, path, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"n1", "n2", "n3", "n4"} {
		fleetNode(t, s, host, "a100", "m-"+host)
	}
	s.Close()

	// The database as it was before migration 35, with the machine id m-n1 registered four
	// times (n3's node since removed).
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"DROP INDEX idx_nodes_machine_id", "ALTER TABLE join_tokens DROP COLUMN node_id",
		"ALTER TABLE gpus DROP COLUMN listed_at",
		"DELETE FROM schema_version WHERE version = 35", "UPDATE nodes SET machine_id = 'm-n1' WHERE hostname <> 'n1'",
		"UPDATE nodes SET state = 'removed' WHERE hostname = 'n3'"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s, err = models.Open(ctx, path, models.Options{})
	if err != nil {
		t.Fatalf("open with migration 35 to apply: %v", err)
	}
	defer s.Close()
	nodes, err := s.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, n := range nodes {
		got[n.Hostname] = n.MachineID
	}
	if diff := cmp.Diff(map[string]string{"n1": "m-n1", "n2": "", "n4": ""}, got); diff != "" {
		t.Errorf("machine ids of the nodes not removed after migration 35 (-want +got):\n%s", diff)
	}
	req := models.NodeRegistration{Hostname: "n5", Pool: "a100", MachineID: "m-n1",
		GPUs: []models.GPUInfo{{UUID: "n5-gpu0", Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}
	if _, err := s.RegisterNode(ctx, req, "hash-n5", ft0); err == nil {
		t.Error("a new node with n1's machine id after migration 35 was registered")
	}
	req = models.NodeRegistration{Hostname: "n6", Pool: "a100",
		GPUs: []models.GPUInfo{{UUID: "n1-gpu0", Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}
	if _, err := s.RegisterNode(ctx, req, "hash-n6", ft0); err == nil {
		t.Error("a new node with n1's card after migration 35 was registered")
	}
}
