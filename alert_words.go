package main

import (
	"time"

	"kashi/handlers/pools"
	"kashi/models"
	"kashi/notice"
	"kashi/views"
)

// alertWords words alerts' chat messages through the catalogs in the installation's language
// lang: a chat channel is shared by people who chose different languages on the pages, so it
// gets one, the installation's (--lang).
func alertWords(lang string) notice.AlertWords {
	l := views.Locale{Lang: lang}
	return func(a models.Alert, loc *time.Location) (string, string) {
		return views.AlertChat(l, pools.AlertView(a), loc)
	}
}
