#!/bin/sh
# delete: stdin {"id"}; exit 3 when there is no such machine (which counts as deleted).
. "$(dirname "$0")/lib.sh"
id=$(field id "$(cat)")
safe_id "$id" && [ -f "$M/$id" ] || { echo "delete: no machine $id" >&2; exit 3; }
rm -f "$M/$id"
