package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"kashi/api"
)

// completeVerb is the hidden verb the completion scripts call for values: `kashi __complete
// states|projects|tasks` prints one value a line, and nothing (exit 0) when the server
// cannot be asked.
const completeVerb = "__complete"

// commands are the binary's commands outside the CLI's verbs, which completion offers too.
var commands = []string{"serve", "agent", "user", "token", "replay", "loadgen", "version"}

// idVerbs are the verbs whose arguments are task ids.
var idVerbs = []string{"show", "cancel", "ready", "logs"}

// runCompletion prints a completion script for bash, zsh or fish: the verbs, then each
// verb's flags, and values: states after -s/-t/-state, projects after -p/-A/-project, task
// ids as the arguments of show, cancel, ready and logs (asked of the server through
// `kashi __complete`).
func runCompletion(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "completion")
	if err := f.parse(args, 1, 1); err != nil {
		return err
	}
	names := slices.Clone(commands)
	flags := map[string][]string{}
	for _, v := range verbs() {
		names = append(names, v.name)
		flags[v.name] = verbFlags(ctx, e, v)
	}
	switch shell := f.pos[0]; shell {
	case "bash", "zsh":
		var cases strings.Builder
		for _, v := range verbs() {
			fmt.Fprintf(&cases, "    %s) opts=%q ;;\n", v.name, strings.Join(flags[v.name], " "))
		}
		script := fmt.Sprintf(bashCompletion, strings.Join(names, " "), strings.Join(idVerbs, "|"), cases.String())
		if shell == "zsh" {
			script = "autoload -U +X bashcompinit && bashcompinit\n" + script
		}
		fmt.Fprint(e.Stdout, script)
	case "fish":
		var b strings.Builder
		fmt.Fprintf(&b, fishHead, strings.Join(names, " "))
		for _, v := range verbs() {
			for _, fl := range flags[v.name] {
				fmt.Fprintf(&b, "complete -c kashi -n '__fish_seen_subcommand_from %s' -o %s\n", v.name, strings.TrimPrefix(fl, "-"))
			}
		}
		fmt.Fprintf(&b, fishValues, strings.Join(idVerbs, " "))
		fmt.Fprint(e.Stdout, b.String())
	default:
		return exitf(ExitUsage, "completion: shell must be bash, zsh or fish, not %q", shell)
	}
	return nil
}

// runCompleteValues prints the values of one kind for completion, one a line: task states,
// the projects the caller sees, or the ids of the caller's newest tasks. A server that cannot
// be asked prints nothing: completion stays quiet.
func runCompleteValues(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, completeVerb)
	if err := f.parse(args, 1, 1); err != nil {
		return err
	}
	switch f.pos[0] {
	case "states":
		for _, s := range api.TaskStates() {
			fmt.Fprintln(e.Stdout, s)
		}
		return nil
	case "projects", "tasks":
	default:
		return exitf(ExitUsage, "%s: kind must be states, projects or tasks, not %q", completeVerb, f.pos[0])
	}
	c, err := f.conn.client(e)
	if err != nil {
		return nil
	}
	if f.pos[0] == "projects" {
		var ps []map[string]any
		if c.get(ctx, "/api/v1/projects", nil, &ps) == nil {
			for _, p := range ps {
				if name, ok := p["name"].(string); ok {
					fmt.Fprintln(e.Stdout, name)
				}
			}
		}
		return nil
	}
	var ts []api.Task
	if c.get(ctx, "/api/v1/tasks", url.Values{"limit": {"100"}}, &ts) == nil {
		for _, t := range ts {
			fmt.Fprintln(e.Stdout, t.ID)
		}
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

// bashCompletion is the bash (and, through bashcompinit, zsh) script: the commands, the
// verbs whose arguments are task ids, and each verb's case of flags.
const bashCompletion = `# kashi completion; load with: source <(kashi completion bash)
_kashi_reply() {
  local w
  COMPREPLY=()
  while IFS= read -r w; do COMPREPLY+=("$w"); done
}
_kashi() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts
  if [ "$COMP_CWORD" -eq 1 ]; then
    _kashi_reply < <(compgen -W "%s" -- "$cur")
    return
  fi
  case "$prev" in
    -s|--s|-t|--t|-state|--state) _kashi_reply < <(compgen -W "$(kashi __complete states 2>/dev/null)" -- "$cur"); return ;;
    -p|--p|-A|--A|-project|--project) _kashi_reply < <(compgen -W "$(kashi __complete projects 2>/dev/null)" -- "$cur"); return ;;
  esac
  case "${COMP_WORDS[1]}" in
    %s) case "$cur" in -*) ;; *) _kashi_reply < <(compgen -W "$(kashi __complete tasks 2>/dev/null)" -- "$cur"); return ;; esac ;;
  esac
  case "${COMP_WORDS[1]}" in
%s    *) opts="" ;;
  esac
  _kashi_reply < <(compgen -W "$opts" -- "$cur")
}
complete -o default -F _kashi kashi
`

// fishHead is the fish script's start: the commands where none is given yet.
const fishHead = `# kashi completion; load with: kashi completion fish | source
complete -c kashi -f
complete -c kashi -n __fish_use_subcommand -a '%s'
`

// fishValues completes values: states, projects and task ids.
const fishValues = `complete -c kashi -n '__fish_seen_subcommand_from %s' -a '(kashi __complete tasks 2>/dev/null)'
complete -c kashi -n 'string match -qr -- "^--?(s|t|state)$" (commandline -opc)[-1]' -a '(kashi __complete states 2>/dev/null)'
complete -c kashi -n 'string match -qr -- "^--?(p|A|project)$" (commandline -opc)[-1]' -a '(kashi __complete projects 2>/dev/null)'
`
