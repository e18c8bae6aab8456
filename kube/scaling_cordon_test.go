package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEvictable: a released machine's node sends away the pods that would die with it
// unasked, as kubectl drain does: not the ended ones, nor a DaemonSet's or a static pod.
func TestEvictable(t *testing.T) {
	ds := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "exporter", Controller: new(true)}
	rs := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", Controller: new(true)}
	for name, c := range map[string]struct {
		pod  corev1.Pod
		want bool
	}{
		"a bare pod":            {corev1.Pod{}, true},
		"a ReplicaSet's":        {corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{rs}}}, true},
		"a DaemonSet's":         {corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{ds}}}, false},
		"a static pod's mirror": {corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "x"}}}, false},
		"succeeded":             {corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}, false},
		"failed":                {corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodFailed}}, false},
		"running":               {corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning}}, true},
	} {
		if got := evictable(&c.pod); got != c.want {
			t.Errorf("evictable(%s) = %t, want %t", name, got, c.want)
		}
	}
}
