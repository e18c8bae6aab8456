#!/bin/sh
# gpu-e2e.sh: one real task on a real GPU through `kashi serve` and `kashi agent`, in under a
# minute: a fresh server on loopback, the agent reading the GPUs through NVML, and a task
# (python3 with torch: 4 GiB and 20 s of matrix products on its card) submitted through the
# API. It prints the task's states, the GPUs as /api/v1/gpus shows them while it runs (the
# card busy, held by the task), the alerts (no unmanaged use), the ended task and its log
# (CUDA_VISIBLE_DEVICES is the card's UUID).
# Usage: scripts/gpu-e2e.sh   (KASHI=path/to/kashi to skip the build; needs python3 with torch)
set -u
cd "$(dirname "$0")/.." || exit 1
D=$(mktemp -d)
K=${KASHI:-}
if [ -z "$K" ]; then
  CGO_ENABLED=1 CGO_CFLAGS="${CGO_CFLAGS:--O2 -g -Wno-deprecated-declarations}" go build -o "$D/kashi" . || exit 1
  K=$D/kashi
fi
S=http://127.0.0.1:18080
PIDS=
trap 'kill $PIDS 2>/dev/null' EXIT
"$K" serve --db "$D/k.db" --addr 127.0.0.1:18080 --admin-password pw-admin-123 --join-token kj_gpucheck --tick 1s --log-level warn > "$D/serve.log" 2>&1 &
PIDS="$PIDS $!"
sleep 3
T=$("$K" token create --db "$D/k.db" --user admin --scope write) || { cat "$D/serve.log"; exit 1; }
H="Authorization: Bearer $T"
curl -sf -H "$H" -H 'Content-Type: application/json' -d '{"name":"gpucheck"}' "$S/api/v1/projects" >/dev/null || echo "project create failed"
curl -s -H "$H" -H 'Content-Type: application/json' -d '{"user":"admin","role":"lead"}' "$S/api/v1/projects/1/members"; echo
# Not root: the agent cannot make cgroups, so tasks run without limits.
CG=; [ "$(id -u)" = 0 ] || CG='--cgroup-parent='
"$K" agent --server "$S" --join-token kj_gpucheck --pool gpucheck --state-dir "$D/agent" --sample-interval 2s --poll-interval 1s --log-level warn ${CG:+"$CG"} > "$D/agent.log" 2>&1 &
PIDS="$PIDS $!"
sleep 4
# The task runs as the admin's Unix account: the account running this script. As root, the
# pool must allow root (a shared node's pool should not).
curl -s -H "$H" -H 'Content-Type: application/json' -d "{\"unix_account\":\"$(id -un)\"}" "$S/api/v1/users/admin/unix-account"; echo
if [ "$(id -u)" = 0 ]; then
  POOL=$(curl -sf -H "$H" "$S/api/v1/gpus" | python3 -c 'import json,sys; g=json.load(sys.stdin); print(json.dumps({"provider":"static","spec":g[0]["spec"],"gpus_per_node":len(g),"allow_root":True}))')
  curl -s -H "$H" -H 'Content-Type: application/json' -d "$POOL" "$S/api/v1/pools/gpucheck" >/dev/null || echo "pool config failed"
fi
PY='import torch,time,os
print("visible", os.environ.get("CUDA_VISIBLE_DEVICES"), flush=True)
x=torch.empty(4*1024**3,dtype=torch.uint8,device="cuda"); y=torch.randn(8192,8192,device="cuda"); t=time.time()
while time.time()-t<20:
    y=y@y.T; y/=y.norm()
torch.cuda.synchronize(); print("done", flush=True)'
BODY=$(python3 -c 'import json,sys; print(json.dumps({"project":"gpucheck","name":"matmul","gpus":1,"command":["python3","-c",sys.argv[1]],"max_runtime_s":600,"data_ready":True}))' "$PY")
R=$(curl -s -H "$H" -H 'Content-Type: application/json' -d "$BODY" "$S/api/v1/tasks"); printf "%s" "$R" | head -c 120; echo
ID=$(printf "%s" "$R" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') || { echo submit failed; tail -n 20 "$D/serve.log" "$D/agent.log"; exit 1; }
echo "task $ID"
state() { curl -sf -H "$H" "$S/api/v1/tasks/$ID" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])'; }
for i in $(seq 1 40); do
  st=$(state)
  echo "t=${i}s state=$st"; [ "$st" = running ] && [ "$i" -gt 12 ] && break; sleep 1
done
echo "== gpus while it runs"; curl -sf -H "$H" "$S/api/v1/gpus"; echo
echo "== unmanaged"; curl -sf -H "$H" "$S/api/v1/alerts" | head -c 600; echo
for i in $(seq 1 40); do st=$(state); case $st in succeeded|failed*|timed-out|cancelled) break;; esac; sleep 1; done
echo "== task at the end"; curl -sf -H "$H" "$S/api/v1/tasks/$ID"; echo
echo "== log"; curl -sf -H "$H" "$S/api/v1/tasks/$ID/log" | head -c 400; echo
echo "== agent log"; tail -5 "$D/agent.log"; echo "== serve log"; tail -5 "$D/serve.log"
