package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"kashi/models"
)

// TestMachineOf: a node is a machine Kashi booted when its spec.providerID is the machine's
// provider id or ends in "/" and it; another id's suffix, an unknown id, no providerID and a
// machine whose id is not known yet match nothing, and such a node registers by its UID.
func TestMachineOf(t *testing.T) {
	ms := []models.Machine{{ProviderID: ""}, {ProviderID: "i-0abc"}, {ProviderID: "sim-0001"}}
	tests := map[string]struct{ providerID, want string }{
		"equal":               {"i-0abc", "i-0abc"},
		"cloud form":          {"aws:///us-east-1a/i-0abc", "i-0abc"},
		"kwok form":           {"kwok://zone-a/sim-0001", "sim-0001"},
		"a longer id":         {"aws:///us-east-1a/i-0abcd", ""},
		"a suffix of another": {"kwok://zone-a/xsim-0001", ""},
		"unknown":             {"gce://p/z/other", ""},
		"none":                {"", ""},
	}
	for name, tc := range tests {
		n := &corev1.Node{Spec: corev1.NodeSpec{ProviderID: tc.providerID}}
		n.UID = "uid-1"
		if got := machineOf(n, ms); got != tc.want {
			t.Errorf("%s: machineOf(%q) = %q, want %q", name, tc.providerID, got, tc.want)
		}
		want := tc.want
		if want == "" {
			want = "uid-1"
		}
		if got := registeredAs(n, machineOf(n, ms)); got != want {
			t.Errorf("%s: registeredAs = %q, want %q", name, got, want)
		}
	}
}
