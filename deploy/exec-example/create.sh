#!/bin/sh
# An exec-provider create script (see fleet/exec) for a cloud with a command-line client: it
# boots a machine whose user data is deploy/cloud-init.yaml, so the machine joins its pool
# without a login. Replace the `cloud` calls with your provider's CLI; the shape stays:
#   stdin {"pool","flavor","image","idempotency_key","tags"}   stdout the machine's JSON.
# Safe to run again with the same key: a machine tagged with the key is the answer.
set -eu
req=$(cat)
field() { printf '%s' "$req" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }
key=$(field idempotency_key)
pool=$(field pool)
flavor=$(field flavor)
image=$(field image)
[ -n "$key" ] || { echo "create: no idempotency_key" >&2; exit 2; }

# A machine already created for this key (an earlier run killed before it answered)?
if found=$(cloud instance list --tag "kashi-key=$key" --output json-line | head -n 1) && [ -n "$found" ]; then
	printf '%s\n' "$found"
	exit 0
fi
# The agent reports KASHI_MACHINE_ID as the provider's id of its machine, so the machine is
# named by the key (unique) and the answer's "id" must be that name.
name="kashi-$key"
userdata=$(mktemp)
trap 'rm -f "$userdata"' EXIT
KASHI_POOL=$pool "$(dirname "$0")/render-cloud-init.sh" "$name" >"$userdata"
cloud instance create --name "$name" --flavor "$flavor" --image "$image" \
	--tag "kashi-key=$key" --tag "kashi-pool=$pool" --user-data "$userdata" --output json-line ||
	{ [ $? -eq 4 ] && exit 4; exit 1; } # 4: the provider is out of stock
