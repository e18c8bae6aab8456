#!/bin/sh
# list: stdin {"pool"}; stdout a JSON array of the pool's machines. A machine deleted while
# the list runs is left out.
. "$(dirname "$0")/lib.sh"
pool=$(field pool "$(cat)")
printf '['
sep=
for f in "$M"/*; do
	m=$(cat "$f" 2>/dev/null) || continue
	case $m in
	*"\"pool\":\"$pool\""*)
		printf '%s%s' "$sep" "$m"
		sep=,
		;;
	esac
done
printf ']\n'
