#!/bin/sh
# The test fleet as one script (kashi serve --fleet-script): the verb is the argument.
case ${1:-} in
create | list | get | delete | flavors) exec "$(dirname "$0")/$1.sh" ;;
esac
echo "fleet.sh: unknown verb '${1:-}'" >&2
exit 2
