package engine

import (
	"fmt"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// NotResourceSync says why a parsed document is not a ResourceSync
// document at all, or returns "" when it is one (well or badly written).
// A site's build folder holds other XML next to its ResourceSync
// documents: plain Sitemaps for search engines, RSS or Atom feeds. A
// directory walk reports those as skipped instead of judging them against
// rules meant for something else; a document named explicitly is always
// judged.
//
// Not ResourceSync: a root element other than <urlset> or <sitemapindex>;
// or a <urlset> or <sitemapindex> in which no element is in the
// ResourceSync namespace (no <rs:md> or <rs:ln>, at the top or in an
// entry). One with any rs element is a ResourceSync document, even when
// its <rs:md> or its namespace is wrong: that is a finding, not a reason
// to skip.
func NotResourceSync(d *rs.Document) string {
	if d == nil {
		return ""
	}
	if d.RootLocal != "urlset" && d.RootLocal != "sitemapindex" {
		what := "the root element is <" + d.RootLocal + ">"
		if d.RootSpace != "" {
			what += " in namespace " + d.RootSpace
		}
		return what + ": not a Sitemap, so not a ResourceSync document"
	}
	if d.Md != nil || len(d.ExtraMd) > 0 || len(d.Links) > 0 {
		return ""
	}
	for _, e := range d.Entries {
		if e.Md != nil || len(e.ExtraMd) > 0 || len(e.Links) > 0 {
			return ""
		}
	}
	return fmt.Sprintf("a plain Sitemap (<%s> without any <rs:md> or <rs:ln>): not a ResourceSync document", d.RootLocal)
}

// SkippedResult is the Result of a document that was deliberately not
// checked, with the reason.
func SkippedResult(location, why string) Result {
	return Result{Location: location, Kind: rs.KindUnknown, Status: StatusSkipped, Error: why}
}
