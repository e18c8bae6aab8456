package cli

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

// TestAttributesTable: kashi gpus shows each pool's free cards beside what it states for work
// across cards and nodes and for storage, "-" for what it does not state, filtered by pool
// and spec like the rest of its output.
func TestAttributesTable(t *testing.T) {
	caps := []api.Capacity{
		{Spec: "A100-80G", Free: 12, LargestFree: 8, Pools: []api.PoolAttributes{{Pool: "a100", IntraNodeLink: "nvlink", IntraNodeGBytesS: 600,
			InterNodeLink: "roce", InterNodePorts: 4, InterNodePortGbps: 200, InterNodeGbps: 800, LocalStorageMBps: 3000, SharedStorageMBps: 2000}}},
		{Spec: "RTX4090-24G", Region: "cn-east", Free: 3, LargestFree: 2, Pools: []api.PoolAttributes{{Pool: "rtx", IntraNodeLink: "pcie", InterNodeLink: "none"}}},
		{Spec: "H100-80G", Free: 0, Pools: []api.PoolAttributes{{Pool: "h100"}}},
	}
	tests := map[string]struct {
		pool, spec string
		want       string
	}{
		"all": {want: `
POOL  SPEC         REGION   FREE  LARGEST  IN-NODE          BETWEEN-NODES    STORAGE-READ
a100  A100-80G     -        12    8        NVLink 600 GB/s  4x200 Gb/s RoCE  local 3000, shared 2000 MB/s
rtx   RTX4090-24G  cn-east  3     2        PCIe             none             -
h100  H100-80G     -        0     0        -                -                -
`},
		"one pool": {pool: "rtx", want: `
POOL  SPEC         REGION   FREE  LARGEST  IN-NODE  BETWEEN-NODES  STORAGE-READ
rtx   RTX4090-24G  cn-east  3     2        PCIe     none           -
`},
		"no such spec": {spec: "V100", want: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := attributesTable(&Env{Stdout: &out}, caps, tc.pool, tc.spec); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out.String()); diff != "" {
				t.Errorf("attributesTable(...) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
