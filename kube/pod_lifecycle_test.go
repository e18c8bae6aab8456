package kube_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kashi/kube/kubetest"
	"kashi/models"
	"kashi/models/modelstest"
)

// TestKubernetesPodLifecycle, on SQLite and Postgres against a real apiserver: a running
// task's pod deleted outside Kashi ends the task failed with that reason, and no pod is made
// again for it; an ended task's pod and its env Secret stay for the pool's retention (an hour
// by default) and are deleted once it has passed; a task without env of its own has a pod
// and no Secret.
func TestKubernetesPodLifecycle(t *testing.T) {
	cluster := kubetest.Start(t)
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		db := dbOf(t)
		w := newWorld(t, cluster, store, db)
		deleted, done, plain := w.submit("deleted", 4), w.submit("done", 4), w.submitEnv("plain", 4, "{}")
		w.tick()
		pods := w.until("the tasks' pods", func() map[int64]*corev1.Pod {
			ps := w.pods()
			if ps[deleted] == nil || ps[done] == nil || ps[plain] == nil {
				return nil
			}
			return ps
		})
		w.untilState([]int64{deleted, done, plain}, models.TaskRunning)
		ctx := context.Background()
		if ef := pods[plain].Spec.Containers[0].EnvFrom; len(ef) != 0 {
			t.Errorf("the pod of a task without env of its own takes env from %+v, want nothing", ef)
		}
		if _, err := cluster.Client.CoreV1().Secrets(w.ns).Get(ctx, pods[plain].Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the Secret of a task without env of its own: %v, want none", err)
		}

		if err := cluster.Client.CoreV1().Pods(w.ns).Delete(ctx, pods[deleted].Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		w.untilState([]int64{deleted}, models.TaskFailed)
		if task := w.task(deleted); !strings.HasPrefix(task.Reason, "stopped: its pod was deleted outside Kashi") {
			t.Errorf("the task whose pod was deleted outside Kashi ended %s %q", task.State, task.Reason)
		}
		w.tick()
		time.Sleep(2 * time.Second) // two resyncs of the controller: time to make a pod again, were it to
		if p := w.pods()[deleted]; p != nil {
			t.Errorf("the pod of a task whose pod was deleted outside Kashi was made again: %s", p.Name)
		}

		cluster.FinishPod(t, w.ns, pods[done].Name, 0)
		w.untilState([]int64{done}, models.TaskSucceeded)
		time.Sleep(2 * time.Second)
		if _, err := cluster.Client.CoreV1().Pods(w.ns).Get(ctx, pods[done].Name, metav1.GetOptions{}); err != nil {
			t.Errorf("an ended pod within its retention: %v, want it kept", err)
		}
		if _, err := cluster.Client.CoreV1().Secrets(w.ns).Get(ctx, pods[done].Name, metav1.GetOptions{}); err != nil {
			t.Errorf("an ended pod's Secret within its retention: %v, want it kept", err)
		}
		w.ahead.Store(int64(61 * time.Minute))
		w.until("the ended pod and its Secret deleted after an hour", func() map[int64]*corev1.Pod {
			_, perr := cluster.Client.CoreV1().Pods(w.ns).Get(ctx, pods[done].Name, metav1.GetOptions{})
			_, serr := cluster.Client.CoreV1().Secrets(w.ns).Get(ctx, pods[done].Name, metav1.GetOptions{})
			if !apierrors.IsNotFound(perr) || !apierrors.IsNotFound(serr) {
				return nil
			}
			return map[int64]*corev1.Pod{}
		})
	})
}
