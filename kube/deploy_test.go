package kube_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"kashi/kube"
	"kashi/kube/kubetest"
	"kashi/models"
	"kashi/models/modelstest"
)

// deployDir is the kustomize base that runs Kashi in a cluster.
const deployDir = "../deploy/base"

// TestDeployManifests applies deploy/base to a real apiserver, as kustomize would (its
// resources into its namespace), so that every manifest is proven valid; checks that its
// RBAC lets the service account do what the controllers do and nothing beside; and runs a
// Kubernetes pool through that account's own token: a task's pod made, run and ended, a
// cancel's pod deleted, the pool's Lease taken.
func TestDeployManifests(t *testing.T) {
	cluster := kubetest.Start(t)
	ctx := context.Background()
	var kz struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Namespace  string   `json:"namespace"`
		Resources  []string `json:"resources"`
	}
	readYAML(t, filepath.Join(deployDir, "kustomization.yaml"), &kz)
	files, _ := filepath.Glob(filepath.Join(deployDir, "*.yaml"))
	var want []string
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" {
			want = append(want, b)
		}
	}
	if got := slices.Sorted(slices.Values(kz.Resources)); !slices.Equal(got, want) {
		t.Errorf("kustomization.yaml's resources = %v, want every manifest of the folder %v", got, want)
	}
	ns := kz.Namespace
	if _, err := cluster.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, r := range kz.Resources {
		applyManifest(t, cluster, filepath.Join(deployDir, r), ns)
	}

	account := "system:serviceaccount:" + ns + ":kashi"
	for _, c := range []struct {
		verb, group, resource, ns string
		allowed                   bool
	}{
		{"list", "", "pods", ns, true}, {"watch", "", "pods", ns, true}, {"create", "", "pods", ns, true},
		{"patch", "", "pods", ns, true}, {"delete", "", "pods", ns, true},
		{"create", "", "secrets", ns, true}, {"patch", "", "secrets", ns, true}, {"delete", "", "secrets", ns, true},
		{"create", "", "services", ns, true}, {"patch", "", "services", ns, true}, {"delete", "", "services", ns, true},
		{"get", "coordination.k8s.io", "leases", ns, true}, {"create", "coordination.k8s.io", "leases", ns, true},
		{"update", "coordination.k8s.io", "leases", ns, true},
		{"list", "", "nodes", "", true}, {"watch", "", "nodes", "", true}, {"patch", "", "nodes", "", true},
		// A released machine's node: its other pods listed and evicted, as kubectl drain does.
		{"list", "", "pods", "", true}, {"create", "", "pods/eviction", "team-b", true},
		// Nothing beside: no Secret is read, no node updated or deleted (only cordoned), no
		// pod deleted outside the namespace but by eviction, nothing else outside it.
		{"get", "", "secrets", ns, false}, {"list", "", "secrets", ns, false}, {"update", "", "nodes", "", false},
		{"delete", "", "nodes", "", false}, {"create", "", "pods", "default", false}, {"list", "", "secrets", "", false},
		{"delete", "coordination.k8s.io", "leases", ns, false}, {"update", "", "pods", ns, false},
		{"create", "", "services", "default", false}, {"list", "", "services", ns, false},
		{"delete", "", "pods", "team-b", false}, {"watch", "", "pods", "", false},
	} {
		resource, subresource, _ := strings.Cut(c.resource, "/")
		sar := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{User: account,
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
			ResourceAttributes: &authzv1.ResourceAttributes{Verb: c.verb, Group: c.group, Resource: resource, Namespace: c.ns,
				Subresource: subresource}}}
		got, err := cluster.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.Allowed != c.allowed {
			t.Errorf("may %s %s %s in %q: %t, want %t", account, c.verb, c.resource, c.ns, got.Status.Allowed, c.allowed)
		}
	}

	kubeconfig := accountKubeconfig(t, cluster, ns)
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		db := dbOf(t)
		w := setUpWorldAs(t, cluster, store, "deploy-"+db, kubeconfig, ns)
		w.start(store, kube.Config{})
		w.untilRegistered()
		done, cancelled := w.submit("done", 4), w.submit("cancelled", 4)
		w.tick()
		pods := w.until("both tasks' pods", func() map[int64]*corev1.Pod {
			ps := w.pods()
			if ps[done] == nil || ps[cancelled] == nil {
				return nil
			}
			return ps
		})
		w.untilState([]int64{done, cancelled}, models.TaskRunning)
		cluster.FinishPod(t, ns, pods[done].Name, 0)
		w.untilState([]int64{done}, models.TaskSucceeded)
		if resp := w.s.Post("/api/v1/tasks/"+strconv.FormatInt(cancelled, 10)+"/cancel", ""); resp.Code >= 300 {
			t.Fatalf("cancel = %d %s", resp.Code, resp.Body)
		}
		w.untilState([]int64{cancelled}, models.TaskCancelled)
		if _, ok := w.pods()[cancelled]; ok {
			t.Errorf("the cancelled task's pod is still there")
		}
		if w.leaseHolder() == "" {
			t.Errorf("the pool's Lease in %s has no holder", ns)
		}
	})
}

// applyManifest creates the manifest's object, its namespaced objects in ns and the service
// account subjects of its bindings there, as kustomize's namespace does.
func applyManifest(t *testing.T, cluster *kubetest.Cluster, path, ns string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(b, nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ctx, c, opts := context.Background(), cluster.Client, metav1.CreateOptions{FieldValidation: "Strict"}
	switch o := obj.(type) {
	case *corev1.ServiceAccount:
		_, err = c.CoreV1().ServiceAccounts(ns).Create(ctx, o, opts)
	case *corev1.Secret:
		_, err = c.CoreV1().Secrets(ns).Create(ctx, o, opts)
	case *corev1.Service:
		_, err = c.CoreV1().Services(ns).Create(ctx, o, opts)
	case *appsv1.Deployment:
		_, err = c.AppsV1().Deployments(ns).Create(ctx, o, opts)
	case *rbacv1.Role:
		_, err = c.RbacV1().Roles(ns).Create(ctx, o, opts)
	case *rbacv1.RoleBinding:
		_, err = c.RbacV1().RoleBindings(ns).Create(ctx, o, opts)
	case *rbacv1.ClusterRole:
		_, err = c.RbacV1().ClusterRoles().Create(ctx, o, opts)
	case *rbacv1.ClusterRoleBinding:
		for i := range o.Subjects {
			if o.Subjects[i].Kind == rbacv1.ServiceAccountKind {
				o.Subjects[i].Namespace = ns
			}
		}
		_, err = c.RbacV1().ClusterRoleBindings().Create(ctx, o, opts)
	default:
		t.Fatalf("%s: a %T, which the test does not apply", path, obj)
	}
	if err != nil {
		t.Fatalf("apply %s: %v", path, err)
	}
}

// accountKubeconfig writes a kubeconfig that reaches the cluster as the kashi service
// account of ns, with a token the apiserver issues for it, in that namespace.
func accountKubeconfig(t *testing.T, cluster *kubetest.Cluster, ns string) string {
	t.Helper()
	tok, err := cluster.Client.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), "kashi",
		&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: cluster.Config.Host, CertificateAuthorityData: cluster.Config.TLSClientConfig.CAData}
	kc.AuthInfos["kashi"] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	kc.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "kashi", Namespace: ns}
	kc.CurrentContext = "c"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
