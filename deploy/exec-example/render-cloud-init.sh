#!/bin/sh
# render-cloud-init.sh MACHINE_ID prints deploy/cloud-init.yaml for one new machine, with the
# systemd unit of deploy/kashi-agent.service inside. Settings come from the environment:
#   KASHI_SERVER, KASHI_JOIN_TOKEN, KASHI_POOL   where the agent reports, and as what
#   KASHI_AGENT_URL                              where the machine downloads the kashi binary
#   KASHI_AGENT_SHA256                           that binary's SHA-256 (sha256sum kashi), checked
#                                                before it is installed
# An exec provider's create script calls it and passes the output as the machine's user data
# (see create.sh).
set -eu
: "${1:?usage: render-cloud-init.sh MACHINE_ID}"
: "${KASHI_SERVER:?}" "${KASHI_JOIN_TOKEN:?}" "${KASHI_POOL:?}" "${KASHI_AGENT_URL:?}" "${KASHI_AGENT_SHA256:?}"
case $KASHI_AGENT_SHA256 in
*[!0-9a-f]*) echo "render-cloud-init.sh: KASHI_AGENT_SHA256 must be 64 lowercase hex digits" >&2 && exit 2 ;;
esac
if [ ${#KASHI_AGENT_SHA256} -ne 64 ]; then
	echo "render-cloud-init.sh: KASHI_AGENT_SHA256 must be 64 lowercase hex digits" >&2
	exit 2
fi
deploy=$(cd "$(dirname "$0")/.." && pwd)
# sed replacement text: escape \, & and the | delimiter.
esc() { printf '%s' "$1" | sed 's/[\\&|]/\\&/g'; }
unit=$(sed 's/^/      /' "$deploy/kashi-agent.service")
while IFS= read -r line; do
	case $line in
	@@UNIT@@) printf '%s\n' "$unit" ;;
	*) printf '%s\n' "$line" | sed \
		-e "s|@@SERVER@@|$(esc "$KASHI_SERVER")|" \
		-e "s|@@JOIN_TOKEN@@|$(esc "$KASHI_JOIN_TOKEN")|" \
		-e "s|@@POOL@@|$(esc "$KASHI_POOL")|" \
		-e "s|@@MACHINE_ID@@|$(esc "$1")|" \
		-e "s|@@KASHI_URL@@|$(esc "$KASHI_AGENT_URL")|" \
		-e "s|@@KASHI_SHA256@@|$KASHI_AGENT_SHA256|" ;;
	esac
done <"$deploy/cloud-init.yaml"
