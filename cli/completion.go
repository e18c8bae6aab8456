package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// runCompletion prints a completion script for bash or zsh: the verbs, then each verb's flags.
func runCompletion(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "completion")
	if err := f.parse(args, 1, 1); err != nil {
		return err
	}
	var names []string
	var cases strings.Builder
	for _, v := range verbs() {
		names = append(names, v.name)
		flags := verbFlags(ctx, e, v)
		fmt.Fprintf(&cases, "    %s) opts=%q ;;\n", v.name, strings.Join(flags, " "))
	}
	switch shell := f.pos[0]; shell {
	case "bash":
		fmt.Fprintf(e.Stdout, bashCompletion, strings.Join(append(names, "serve", "agent", "user", "token", "replay", "loadgen", "version"), " "), cases.String())
	case "zsh":
		fmt.Fprintf(e.Stdout, "autoload -U +X bashcompinit && bashcompinit\n"+bashCompletion, strings.Join(names, " "), cases.String())
	default:
		return exitf(ExitUsage, "completion: shell must be bash or zsh, not %q", shell)
	}
	return nil
}

// flagLine is a flag's line in a verb's -h text.
var flagLine = regexp.MustCompile(`(?m)^  (-[\w-]+)`)

// verbFlags are the flags of a verb, read from its -h text (which sends nothing).
func verbFlags(ctx context.Context, e *Env, v verb) []string {
	var help bytes.Buffer
	v.run(ctx, &Env{Getenv: e.Getenv, Stdout: io.Discard, Stderr: &help}, []string{"-h"})
	var flags []string
	for _, m := range flagLine.FindAllStringSubmatch(help.String(), -1) {
		flags = append(flags, m[1])
	}
	return flags
}

const bashCompletion = `# kashi completion; load with: source <(kashi completion bash)
_kashi() {
  local cur=${COMP_WORDS[COMP_CWORD]} opts
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "%s" -- "$cur"))
    return
  fi
  case "${COMP_WORDS[1]}" in
%s    *) opts="" ;;
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F _kashi kashi
`
