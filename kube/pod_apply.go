package kube

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	"kashi/agent"
	"kashi/api"
	"kashi/models"
)

// containerName is the name of a task pod's one container.
const containerName = "task"

// applyPod makes the pod of a task placed on the node, by server-side apply as field manager
// "kashi": bound to the node (spec.nodeName: no scheduler of the cluster decides), the task's
// image and command, its cards as nvidia.com/gpu limits, labels naming the pool, task, attempt
// and project, and the KASHI_ variables an agent sets in its spec's env (none is secret; the
// spec's env wins over envFrom, so the task cannot override them), with torchrun's names of
// the task's shape (MASTER_ADDR…) unless the task's own env sets them. The task's own environment,
// secret values included, is in a Secret of the same name that the pod owns, so that its
// values are not in the pod's spec and go with the pod; a task without one has no Secret, and
// its pod is one request.
func (pc *poolController) applyPod(ctx context.Context, node string, a models.Assignment, task models.TaskRow) error {
	name := pc.podName(a)
	lbl := map[string]string{labelManagedBy: fieldManager, labelPool: pc.pool.Name,
		labelTask: strconv.FormatInt(a.TaskID, 10), labelAttempt: strconv.Itoa(max(a.Attempt, 1))}
	rankLabels(lbl, a)
	if labelValue.MatchString(task.Project) {
		lbl[labelProject] = task.Project
	}
	gpus := *resource.NewQuantity(int64(len(a.GPUUUIDs)), resource.DecimalSI)
	ctr := corev1ac.Container().WithName(containerName).WithImage(a.Image).WithCommand(a.Command...).
		WithResources(corev1ac.ResourceRequirements().WithLimits(corev1.ResourceList{GPUResource: gpus}))
	for _, kv := range specEnv(a) {
		k, v, _ := strings.Cut(kv, "=")
		ctr.WithEnv(corev1ac.EnvVar().WithName(k).WithValue(v))
	}
	if len(a.Env) > 0 {
		ctr.WithEnvFrom(corev1ac.EnvFromSource().WithSecretRef(corev1ac.SecretEnvSource().WithName(name)))
	}
	if a.Workdir != "" {
		ctr.WithWorkingDir(a.Workdir)
	}
	grace := int64(pc.cfg.StopGrace.Seconds())
	pod := corev1ac.Pod(name, pc.namespace).WithLabels(lbl).
		WithAnnotations(map[string]string{"kashi.io/project": task.Project, "kashi.io/owner": task.Owner}).
		WithSpec(corev1ac.PodSpec().WithNodeName(node).WithRestartPolicy(corev1.RestartPolicyNever).
			WithTerminationGracePeriodSeconds(grace).WithAutomountServiceAccountToken(false).
			WithContainers(ctr).
			WithTolerations(corev1ac.Toleration().WithOperator(corev1.TolerationOpExists)))
	if a.MaxRuntimeS > 0 {
		pod.Spec.WithActiveDeadlineSeconds(a.MaxRuntimeS)
	}
	made, err := pc.client.CoreV1().Pods(pc.namespace).Apply(ctx, pod, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("apply pod %s: %w", name, err)
	}
	return pc.completePod(ctx, a, made)
}

// completePod makes what the pod needs beside itself, each owned by it (its UID is known only
// once it is made, so they follow it): its Secret of the task's env, when the task has one,
// and its rendezvous Service, when it is the rank-0 pod of a task across nodes. A pod whose
// companions failed is whole once a later sync of its node completes it (syncNode does so for
// each pod not whole in this term, so a pod made by an earlier term or replica is checked too:
// server-side apply of what is there already changes nothing).
func (pc *poolController) completePod(ctx context.Context, a models.Assignment, pod *corev1.Pod) error {
	if len(a.Env) > 0 {
		secret := corev1ac.Secret(pod.Name, pc.namespace).WithLabels(pod.Labels).WithType(corev1.SecretTypeOpaque).
			WithData(podEnv(a)).WithOwnerReferences(ownedBy(pod))
		if _, err := pc.client.CoreV1().Secrets(pc.namespace).Apply(ctx, secret, metav1.ApplyOptions{FieldManager: fieldManager, Force: true}); err != nil {
			return fmt.Errorf("apply secret %s: %w", pod.Name, err)
		}
	}
	if err := pc.applyRendezvous(ctx, a, pod); err != nil {
		return err
	}
	pc.mu.Lock()
	pc.whole[pod.UID] = true
	pc.mu.Unlock()
	return nil
}

// isWhole reports whether this term made the pod's companions (completePod).
func (pc *poolController) isWhole(pod *corev1.Pod) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.whole[pod.UID]
}

// ownedBy is the owner reference of what goes with the pod.
func ownedBy(pod *corev1.Pod) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().WithAPIVersion("v1").WithKind("Pod").WithName(pod.Name).
		WithUID(pod.UID).WithController(true)
}

// specEnv is the env a task's pod spec names (NAME=value): the KASHI_ variables, and
// torchrun's names of the task's shape unless the task's own env, its Secret's, sets them.
func specEnv(a models.Assignment) []string {
	env := agent.KashiEnv(api.Assignment(a))
	for _, kv := range agent.TorchrunEnv(api.Assignment(a)) {
		k, _, _ := strings.Cut(kv, "=")
		if _, own := a.Env[k]; !own {
			env = append(env, kv)
		}
	}
	return env
}

// podEnv is the task's own environment, its pod's Secret's data.
func podEnv(a models.Assignment) map[string][]byte {
	env := make(map[string][]byte, len(a.Env))
	for k, v := range a.Env {
		env[k] = []byte(v)
	}
	return env
}

// hasSecret reports whether the pod takes its environment from its Secret.
func hasSecret(p *corev1.Pod) bool {
	for _, c := range p.Spec.Containers {
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil && e.SecretRef.Name == p.Name {
				return true
			}
		}
	}
	return false
}

// labelValue matches what a label value may be.
var labelValue = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`)
