#!/bin/sh
# get: stdin {"id"}; stdout the machine, or exit 3 when there is none.
. "$(dirname "$0")/lib.sh"
id=$(field id "$(cat)")
if safe_id "$id" && m=$(cat "$M/$id" 2>/dev/null); then
	printf '%s\n' "$m"
	exit 0
fi
echo "get: no machine $id" >&2
exit 3
