#!/bin/sh
# gpu-check.sh: check Kashi's node agent on a machine with NVIDIA GPUs, in a few minutes.
# Builds kashi, prints the GPUs as the agent reads them (`kashi agent --once --print`), then
# runs the agent's NVML tests against the real driver (they fail, not skip, without one).
# scripts/gpu-e2e.sh then runs one real task on a GPU through the server and the agent.
# Usage: scripts/gpu-check.sh   (from anywhere in the repository; needs Go and a C compiler)
set -eu
cd "$(dirname "$0")/.."
export CGO_ENABLED=1
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g -Wno-deprecated-declarations}"
out="${TMPDIR:-/tmp}/kashi-gpu-check"
mkdir -p "$out"

echo "== build"
go build -o "$out/kashi" .

echo "== kashi agent --once --print"
"$out/kashi" agent --once --print

echo "== agent NVML tests on the real driver"
KASHI_TEST_REAL_NVML=1 go test -count=1 -v -run 'RealNVML|Supervised|Restart|Account' ./agent/
echo "== all good"
