package graph

import (
	"slices"
	"sort"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// Sampling says which listed resources a crawl fetched to check what the
// lists claim of them, and which it left and why: a verdict on resources
// is only as good as what was observed.
type Sampling struct {
	// Resources is the number of distinct resources fetched.
	Resources int
	// Lists are the Resource Lists and Change Lists the crawl read, in
	// the order of the report's documents.
	Lists []SampledList
	// Skipped adds up the entries the lists left unsampled, by reason.
	Skipped map[string]int
}

// SampledList is what was sampled of one list.
type SampledList struct {
	Location string
	Kind     rs.Kind
	// Entries is the number of entries with a <loc>; Sampled those whose
	// resource was fetched (a resource that several lists name is fetched
	// once and counts in each).
	Entries, Sampled int
	// Skipped counts the other entries by reason (Skip* constants).
	Skipped map[string]int
}

// Reasons an entry was not sampled.
const (
	SkipClosed   = "closed"   // in a closed Change List (until): it describes the past
	SkipArchived = "archived" // in a list reached from an archive
	SkipEarlier  = "earlier"  // a change that a later entry of the same Change List supersedes
	SkipDeleted  = "deleted"  // a deletion: nothing to fetch
	SkipLimit    = "limit"    // beyond --sample N
	SkipBudget   = "budget"   // the byte or document budget was spent first
	SkipHost     = "host"     // a host the crawl may not fetch from
	SkipPage     = "page"     // read as something else (the entry page, a document), not judged as a resource
	SkipOther    = "other"    // not fetched for another reason (the crawl was cancelled)
)

// SkipReasons lists the reasons in the order reports give them.
var SkipReasons = []string{SkipClosed, SkipArchived, SkipEarlier, SkipDeleted, SkipLimit, SkipBudget, SkipHost, SkipPage, SkipOther}

// SkipTotal adds up a map of counts by reason, and names the reasons
// present, in SkipReasons order (others after, sorted).
func SkipTotal(m map[string]int) (total int, reasons []string) {
	for _, r := range SkipReasons {
		if m[r] > 0 {
			total += m[r]
			reasons = append(reasons, r)
		}
	}
	var extra []string
	for r, n := range m {
		if n > 0 && !slices.Contains(SkipReasons, r) {
			total += n
			extra = append(extra, r)
		}
	}
	sort.Strings(extra)
	return total, append(reasons, extra...)
}
