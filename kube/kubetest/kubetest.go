// Package kubetest starts a real Kubernetes control plane for tests: kine (etcd's API over a
// SQLite file), kube-apiserver on loopback with serving certificates made here, and kwok, which
// plays the kubelet of the simulated nodes it manages (those labelled ManagedLabel): their pods
// go Running, and end as the test says (FinishPod). Tests skip when KASHI_TEST_KUBE (the
// folder scripts/kube-binaries.sh built kine, kube-apiserver and kwok into) is not set; CI
// sets it.
package kubetest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Env names the folder holding the kine, kube-apiserver and kwok binaries.
const Env = "KASHI_TEST_KUBE"

// ManagedLabel marks the nodes kwok simulates (its --manage-nodes-with-label-selector).
const ManagedLabel = "kwok.x-k8s.io/node"

// ExitAnnotation on a running pod of a simulated node makes kwok end it with that exit code
// (0: Succeeded, else Failed); see FinishPod.
const ExitAnnotation = "kashi.test/exit-code"

// GPUResource is the extended resource the simulated nodes offer.
const GPUResource = "nvidia.com/gpu"

// Cluster is a running control plane with kwok.
type Cluster struct {
	// Config reaches the apiserver as a member of system:masters.
	Config *rest.Config
	// Kubeconfig is the path of a kubeconfig file saying the same.
	Kubeconfig string
	Client     kubernetes.Interface
	dir        string
}

// Start starts kine, kube-apiserver and kwok, waits until the apiserver is ready, and stops
// them when the test ends. It skips the test when KASHI_TEST_KUBE is not set and fails it
// when a part does not come up (its log is printed).
func Start(t testing.TB) *Cluster {
	t.Helper()
	bin := os.Getenv(Env)
	if bin == "" {
		t.Skip(Env + " is not set: no Kubernetes control plane to test against (scripts/kube-binaries.sh builds one)")
	}
	dir := t.TempDir()
	c := &Cluster{dir: dir}
	token := "kashi-test-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	writeFile(t, filepath.Join(dir, "tokens.csv"), token+`,kashi-test,kashi-test,"system:masters"`+"\n")
	writeServiceAccountKey(t, dir)
	caPEM := writeServingCert(t, dir)

	etcd := freeAddr(t)
	c.start(t, bin, "kine", "--endpoint", "sqlite://"+filepath.Join(dir, "kine.db")+"?_journal=WAL&cache=shared&_busy_timeout=30000",
		"--listen-address", etcd, "--metrics-bind-address", "0")
	waitTCP(t, etcd, filepath.Join(dir, "kine.log"))

	api := freeAddr(t)
	host, port, _ := net.SplitHostPort(api)
	c.start(t, bin, "kube-apiserver",
		"--etcd-servers=http://"+etcd, "--storage-backend=etcd3",
		"--bind-address="+host, "--advertise-address="+host, "--secure-port="+port,
		"--tls-cert-file="+filepath.Join(dir, "serving.crt"), "--tls-private-key-file="+filepath.Join(dir, "serving.key"),
		"--cert-dir="+filepath.Join(dir, "certs"),
		"--token-auth-file="+filepath.Join(dir, "tokens.csv"), "--anonymous-auth=false", "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file="+filepath.Join(dir, "sa.key"),
		"--service-cluster-ip-range=10.96.0.0/24",
		// No controller-manager runs: nothing makes namespaces' default service accounts.
		"--disable-admission-plugins=ServiceAccount",
		"--enable-priority-and-fairness=false", "--endpoint-reconciler-type=none", "--profiling=false")

	c.Config = &rest.Config{Host: "https://" + api, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: caPEM},
		QPS: 200, Burst: 400}
	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["test"] = &clientcmdapi.Cluster{Server: c.Config.Host, CertificateAuthorityData: caPEM}
	kc.AuthInfos["test"] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "test"}
	kc.CurrentContext = "test"
	if err := clientcmd.WriteToFile(*kc, c.Kubeconfig); err != nil {
		t.Fatal(err)
	}
	cl, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	c.Client = cl
	c.waitReady(t)

	writeFile(t, filepath.Join(dir, "stages.yaml"), stages)
	c.start(t, bin, "kwok", "--kubeconfig="+c.Kubeconfig, "--config="+filepath.Join(dir, "stages.yaml"),
		"--manage-all-nodes=false", "--manage-nodes-with-label-selector="+ManagedLabel,
		"--server-address="+freeAddr(t), "--node-lease-duration-seconds=0")
	return c
}

// start runs one part with its output in DIR/NAME.log and kills it when the test ends.
func (c *Cluster) start(t testing.TB, bin, name string, args ...string) {
	t.Helper()
	log, err := os.Create(filepath.Join(c.dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
		if t.Failed() {
			t.Logf("%s's log: %s", name, tail(filepath.Join(c.dir, name+".log")))
		}
	})
}

// waitReady waits until the apiserver answers /readyz and has made the default namespace.
func (c *Cluster) waitReady(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err := c.Client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
		if err == nil {
			_, err = c.Client.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		}
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-apiserver not ready in 2 minutes: %v\n%s", err, tail(filepath.Join(c.dir, "kube-apiserver.log")))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// AddGPUNode creates a node kwok simulates, offering gpus nvidia.com/gpu, with labels.
func (c *Cluster) AddGPUNode(t testing.TB, name string, gpus int, labels map[string]string) {
	t.Helper()
	c.AddMachineNode(t, name, gpus, labels, "")
}

// AddMachineNode is AddGPUNode for the node a cloud machine joins the cluster as: its
// spec.providerID names the machine ("" for none).
func (c *Cluster) AddMachineNode(t testing.TB, name string, gpus int, labels map[string]string, providerID string) {
	t.Helper()
	l := map[string]string{ManagedLabel: "fake", "type": "kwok"}
	for k, v := range labels {
		l[k] = v
	}
	res := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("96"), corev1.ResourceMemory: resource.MustParse("1Ti"),
		corev1.ResourcePods: resource.MustParse("110"), GPUResource: *resource.NewQuantity(int64(gpus), resource.DecimalSI)}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l, Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}},
		Spec: corev1.NodeSpec{ProviderID: providerID,
			Taints: []corev1.Taint{{Key: "kwok.x-k8s.io/node", Value: "fake", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Capacity: res, Allocatable: res},
	}
	if _, err := c.Client.CoreV1().Nodes().Create(context.Background(), node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create node %s: %v", name, err)
	}
}

// FinishPod makes kwok end a running pod with the exit code, as its container exiting would.
func (c *Cluster) FinishPod(t testing.TB, namespace, name string, exitCode int) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, ExitAnnotation, strconv.Itoa(exitCode))
	if _, err := c.Client.CoreV1().Pods(namespace).Patch(context.Background(), name, "application/merge-patch+json",
		[]byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("finish pod %s/%s: %v", namespace, name, err)
	}
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// writeServiceAccountKey writes the key the apiserver signs service account tokens with.
func writeServiceAccountKey(t testing.TB, dir string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sa.key"), string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})))
	writeFile(t, filepath.Join(dir, "sa.pub"), string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})))
}

// writeServingCert writes a self-signed serving certificate for 127.0.0.1 and localhost and
// returns it as PEM, the CA its clients trust.
func writeServingCert(t testing.TB, dir string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "kashi-test-apiserver"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	writeFile(t, filepath.Join(dir, "serving.crt"), string(cert))
	writeFile(t, filepath.Join(dir, "serving.key"), string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})))
	return cert
}

// freeAddr is a loopback address with a port free now.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitTCP waits up to a minute for addr to accept connections.
func waitTCP(t testing.TB, addr, log string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s after a minute: %v\n%s", addr, err, tail(log))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tail is the last 4 KiB of a log file.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	return string(b)
}
