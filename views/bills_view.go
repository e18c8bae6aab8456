package views

import (
	"time"

	"kashi/phrase"
)

// Yuan formats fen as yuan (phrase.Yuan): 123456 → "¥1,234.56".
var Yuan = phrase.Yuan

// BillStamp is a time on bill pages, in the zone the time carries.
func BillStamp(t time.Time) string { return t.Format("2006-01-02 15:04 MST") }
