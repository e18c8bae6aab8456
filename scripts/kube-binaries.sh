#!/usr/bin/env bash
# Builds the Kubernetes test harness the kube tests start — kube-apiserver (k8s.io/kubernetes
# v1.34.2), kine (v0.17.5, etcd's API over SQLite) and kwok (v0.8.0, simulated nodes and pods) —
# from the pinned modules under tools/kube/ into DIR (default: $KASHI_TEST_KUBE). Each module
# is its own go.mod because the three pin different k8s.io releases. A binary is rebuilt only
# when its module's go.sum changed: DIR/NAME.sum holds the hash it was built from.
# Usage: scripts/kube-binaries.sh [DIR]; then export KASHI_TEST_KUBE=DIR.
set -euo pipefail
cd "$(dirname "$0")/../tools/kube"
dir=${1:-${KASHI_TEST_KUBE:?give the directory as an argument or in KASHI_TEST_KUBE}}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g -Wno-deprecated-declarations}"
build() { # build MODULE-DIR BINARY PACKAGE [go build flags...]
  local mod=$1 bin=$2 pkg=$3
  shift 3
  local sum
  sum=$(sha256sum "$mod/go.mod" "$mod/go.sum" | sha256sum | cut -d' ' -f1)
  if [ -x "$dir/$bin" ] && [ "$(cat "$dir/$bin.sum" 2>/dev/null)" = "$sum" ]; then
    echo "$bin: current ($sum)"
    return
  fi
  local start=$SECONDS
  (cd "$mod" && go build -trimpath "$@" -o "$dir/$bin.tmp" "$pkg")
  mv "$dir/$bin.tmp" "$dir/$bin"
  echo "$sum" >"$dir/$bin.sum"
  echo "$bin: built in $((SECONDS - start)) s"
}
build kine kine github.com/k3s-io/kine
build kwok kwok sigs.k8s.io/kwok/cmd/kwok
build apiserver kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
