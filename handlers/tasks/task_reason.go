package tasks

import (
	"kashi/api"
	"kashi/phrase"
	tasksview "kashi/views/tasks"
)

// reasonJSON is a reason the store recorded with a task's change of state as the API shows
// it: in l's language, as the task's page writes it, with its codes and arguments beside it
// when the server knows the sentence (tasksview.TaskReason); other text as recorded.
func reasonJSON(l phrase.Locale, stored string) (string, []api.Phrase) {
	list, ok := tasksview.TaskReason(stored)
	if !ok {
		return stored, nil
	}
	codes := make([]api.Phrase, len(list))
	for i, p := range list {
		codes[i] = api.Phrase{Code: p.Code}
		for _, a := range p.Args {
			codes[i].Args = append(codes[i].Args, api.PhraseArg{Kind: string(a.Kind), N: a.N, S: a.S})
		}
	}
	return l.Say(list), codes
}
