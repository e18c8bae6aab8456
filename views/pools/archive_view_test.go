package pools

import (
	"testing"

	"kashi/models"
	"kashi/phrase"
)

// TestArchiveKindsAreWorded: every kind of archived record has its word in both languages.
func TestArchiveKindsAreWorded(t *testing.T) {
	for _, kind := range []string{models.ArchiveBills, models.ArchiveLedger, models.ArchiveTemplates, models.ArchivePools,
		models.ArchiveApprovals, models.ArchivePlans, models.ArchiveBackups} {
		en, zh := archiveKind(phrase.Locale{Lang: phrase.LangEN}, kind), archiveKind(phrase.Locale{Lang: phrase.LangZH}, kind)
		if en == kind || zh == kind || en == zh {
			t.Errorf("archiveKind(%s) = %q, %q; want a word in each language", kind, en, zh)
		}
	}
}
