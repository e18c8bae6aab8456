package kubetest

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// FaultyKubeconfig writes a kubeconfig that reaches the apiserver through a proxy of the
// test's own, as a member of system:masters: the proxy answers each request for which fail
// reports true as a loaded apiserver whose handler timed out does (504, a Status of reason
// Timeout), and passes the others on, watches streamed.
func (c *Cluster) FaultyKubeconfig(t testing.TB, fail func(*http.Request) bool) string {
	t.Helper()
	rt, err := rest.TransportFor(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(c.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport, proxy.FlushInterval = rt, -1
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail(r) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusGatewayTimeout)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the test's apiserver timed out","reason":"Timeout","code":504}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	kc := clientcmdapi.NewConfig()
	kc.Clusters["faulty"] = &clientcmdapi.Cluster{Server: srv.URL,
		CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})}
	kc.AuthInfos["faulty"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["faulty"] = &clientcmdapi.Context{Cluster: "faulty", AuthInfo: "faulty", Namespace: "default"}
	kc.CurrentContext = "faulty"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}
