# Shared helpers of the test fleet scripts (POSIX sh and coreutils only; no jq).
# The "cloud" is a directory: $KASHI_EXEC_STATE/machines holds one file per machine, whose one
# line is the machine's JSON. $KASHI_EXEC_STATE/capacity, when present, caps the machines.
set -eu
: "${KASHI_EXEC_STATE:?KASHI_EXEC_STATE must name the state directory}"
S=$KASHI_EXEC_STATE
M=$S/machines
mkdir -p "$M"

# field NAME JSON prints the string value of "NAME":"…" in one line of compact JSON.
field() { printf '%s' "$2" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }

# safe_id ID fails unless ID is a plain machine id (no path tricks).
safe_id() {
	case $1 in
	'' | .* | *[!A-Za-z0-9._-]*) return 1 ;;
	esac
}

# lock takes the state lock: a hard link made atomically, holding the holder's pid. A lock
# whose holder died (a script killed at its timeout) is broken.
lock() {
	echo $$ >"$S/lock.$$"
	while ! ln "$S/lock.$$" "$S/lock" 2>/dev/null; do
		holder=$(cat "$S/lock" 2>/dev/null || true)
		if [ -n "$holder" ] && ! kill -0 "$holder" 2>/dev/null; then
			rm -f "$S/lock"
		fi
		sleep 0.01
	done
	rm -f "$S/lock.$$"
}

unlock() { rm -f "$S/lock"; }
