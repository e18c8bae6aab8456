package pools

import "kashi/phrase"

// archiveKind is the word for a kind of archived record (the layout's folder).
func archiveKind(l phrase.Locale, kind string) string {
	switch kind {
	case "bills":
		return l.T("archive.kind.bills")
	case "ledger":
		return l.T("archive.kind.ledger")
	case "templates":
		return l.T("archive.kind.templates")
	case "pools":
		return l.T("archive.kind.pools")
	case "approvals":
		return l.T("archive.kind.approvals")
	case "plans":
		return l.T("archive.kind.plans")
	case "backups":
		return l.T("archive.kind.backups")
	}
	return kind
}
