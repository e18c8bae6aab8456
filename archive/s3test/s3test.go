// Package s3test starts a real S3-compatible server for tests: the Versity S3 Gateway
// (versitygw), on loopback, over a temporary folder, with bucket versioning. Tests skip when
// KASHI_TEST_VERSITYGW (the path of the versitygw binary) is not set; CI sets it.
package s3test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Env names the versitygw binary the tests start.
const Env = "KASHI_TEST_VERSITYGW"

// The gateway's root keys.
const (
	AccessKey = "kashitest"
	SecretKey = "kashitest-secret-key"
)

// Gateway is a running versitygw with one bucket, Bucket.
type Gateway struct {
	t        testing.TB
	bin      string
	dir      string
	Addr     string
	Endpoint string
	Bucket   string
	cmd      *exec.Cmd
}

// Start starts a gateway with an empty, versioned bucket and stops it when the test ends;
// it skips the test when KASHI_TEST_VERSITYGW is not set, and fails it when the gateway does
// not come up.
func Start(t testing.TB) *Gateway {
	t.Helper()
	bin := os.Getenv(Env)
	if bin == "" {
		t.Skip(Env + " is not set: no S3 store to test against")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	g := &Gateway{t: t, bin: bin, dir: t.TempDir(), Addr: addr, Endpoint: "http://" + addr, Bucket: "kashi-archive"}
	for _, d := range []string{"data", "versions"} {
		if err := os.Mkdir(filepath.Join(g.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	g.Resume()
	t.Cleanup(g.Stop)
	cl := g.Client()
	ctx := context.Background()
	if err := cl.MakeBucket(ctx, g.Bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("make bucket: %v", err)
	}
	if err := cl.EnableVersioning(ctx, g.Bucket); err != nil {
		t.Fatalf("versioning: %v", err)
	}
	return g
}

// Resume starts the gateway (again, after Stop) on its address and folder, and waits until it
// answers.
func (g *Gateway) Resume() {
	g.t.Helper()
	g.cmd = exec.Command(g.bin, "--port", g.Addr, "posix", "--versioning-dir", filepath.Join(g.dir, "versions"), filepath.Join(g.dir, "data"))
	g.cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+AccessKey, "ROOT_SECRET_KEY="+SecretKey)
	log, err := os.Create(filepath.Join(g.dir, fmt.Sprintf("gateway-%d.log", time.Now().UnixNano())))
	if err != nil {
		g.t.Fatal(err)
	}
	g.cmd.Stdout, g.cmd.Stderr = log, log
	if err := g.cmd.Start(); err != nil {
		g.t.Fatalf("start versitygw: %v", err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		c, err := net.DialTimeout("tcp", g.Addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			g.Stop()
			g.t.Fatalf("versitygw did not come up on %s: %v", g.Addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the gateway: the store is out until Resume.
func (g *Gateway) Stop() {
	if g.cmd == nil || g.cmd.Process == nil {
		return
	}
	g.cmd.Process.Kill()
	g.cmd.Wait()
	g.cmd = nil
}

// Client is a client of the gateway as its root.
func (g *Gateway) Client() *minio.Client {
	g.t.Helper()
	cl, err := minio.New(g.Addr, &minio.Options{Creds: credentials.NewStaticV4(AccessKey, SecretKey, ""), BucketLookup: minio.BucketLookupPath})
	if err != nil {
		g.t.Fatal(err)
	}
	return cl
}
