#!/bin/sh
# create: stdin {"pool","flavor","image","idempotency_key","tags"}; stdout the machine.
# Safe to run again after a kill at any point: a machine carrying the key is the answer.
. "$(dirname "$0")/lib.sh"
req=$(cat)
key=$(field idempotency_key "$req")
pool=$(field pool "$req")
flavor=$(field flavor "$req")
tags=$(printf '%s' "$req" | sed -n 's/.*"tags":\({[^}]*}\).*/\1/p')
[ -n "$key" ] || { echo "create: no idempotency_key in $req" >&2; exit 2; }
[ -n "$tags" ] || tags='{}'

lock
found=$(grep -lF "\"idempotency_key\":\"$key\"" "$M"/* 2>/dev/null | head -n 1 || true)
if [ -n "$found" ]; then
	unlock
	cat "$found"
	exit 0
fi
# A kill here leaves a dead holder's lock and no machine. A test that wants the kill here
# names a file in KASHI_EXEC_PAUSING and waits for it.
[ -z "${KASHI_EXEC_PAUSING:-}" ] || : >"$KASHI_EXEC_PAUSING"
sleep "${KASHI_EXEC_CREATE_PAUSE:-0}"
if [ -f "$S/capacity" ]; then
	n=$(ls "$M" | wc -l)
	if [ "$n" -ge "$(cat "$S/capacity")" ]; then
		unlock
		echo "create: flavor $flavor sold out ($n machines)" >&2
		exit 4
	fi
fi
seq=$(($(cat "$S/seq" 2>/dev/null || echo 0) + 1))
echo "$seq" >"$S/seq"
id=m-$seq
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
printf '{"id":"%s","pool":"%s","idempotency_key":"%s","state":"running","flavor":"%s","tags":%s,"created_at":"%s"}\n' \
	"$id" "$pool" "$key" "$flavor" "$tags" "$now" >"$M/.$id.tmp"
mv "$M/.$id.tmp" "$M/$id"
unlock
# The slow part of a cloud call: the machine exists, the answer is not back yet. A test that
# wants the kill here names a file in KASHI_EXEC_CREATED and waits for it.
[ -z "${KASHI_EXEC_CREATED:-}" ] || : >"$KASHI_EXEC_CREATED"
sleep "${KASHI_EXEC_CREATE_SLEEP:-0}"
cat "$M/$id"
