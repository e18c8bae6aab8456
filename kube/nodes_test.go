package kube

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kashi/models"
)

// TestGPUsOf: a node's allocatable nvidia.com/gpu are its GPUs, of the model and memory its
// feature discovery labels say, else of the pool's spec; a node without cards has none; the
// spec they register as is the pool's either way.
func TestGPUsOf(t *testing.T) {
	node := func(gpus string, labels map[string]string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-7", Labels: labels}}
		if gpus != "" {
			n.Status.Allocatable = corev1.ResourceList{GPUResource: resource.MustParse(gpus)}
		}
		return n
	}
	labelled := gpusOf(node("8", map[string]string{labelGPUProduct: "NVIDIA-A100-SXM4-80GB", labelGPUMemory: "81920"}))
	if len(labelled) != 8 || labelled[7].UUID != "k8s-gpu-7-7" || models.SpecOf(labelled[0].Name, labelled[0].MemoryTotalMiB) != "A100-80G" {
		t.Errorf("gpusOf(a labelled node) = %+v", labelled)
	}
	bare := gpusOf(node("4", nil))
	if err := withSpec(bare, "H800-80G"); err != nil || len(bare) != 4 || models.SpecOf(bare[3].Name, bare[3].MemoryTotalMiB) != "H800-80G" {
		t.Errorf("gpusOf(a node without labels) with the pool's spec = %+v, %v", bare, err)
	}
	if err := withSpec(gpusOf(node("1", nil)), "weird"); err == nil {
		t.Errorf("withSpec(a spec without memory) = nil, want an error")
	}
	if got := gpusOf(node("", nil)); got != nil {
		t.Errorf("gpusOf(a node without cards) = %+v", got)
	}
	if long := gpuUUID(strings.Repeat("n", 200), 3); len(long) > 100 || !strings.HasSuffix(long, "-3") {
		t.Errorf("gpuUUID(a 200-byte name) = %q, want at most 100 bytes", long)
	}
}

// TestDNSLabel: a pool's name in its pods' names is a DNS label's start.
func TestDNSLabel(t *testing.T) {
	for in, want := range map[string]string{"A100_pool": "a100-pool", "训练": "pool", "-x-": "x", strings.Repeat("a", 60): strings.Repeat("a", 40)} {
		if got := dnsLabel(in); got != want {
			t.Errorf("dnsLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
