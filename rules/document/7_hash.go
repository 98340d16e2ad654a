package document

import (
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Fixity attributes of section 7: hash.

// 7: "hash – ... The attribute value is expressed in the form of a
// whitespace-delimited list of hash values. Each hash value is represented
// by a hex-encoded digest and is preceded by a token that identifies the
// utilized hash algorithm, e.g., md5:, sha-256:."
var HashSyntax = &engine.Rule{
	ID: "RS-HASH-SYNTAX", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "hash is a whitespace-delimited list of algorithm:hexdigest with the algorithm's digest length",
	Quote: "The attribute value is expressed in the form of a whitespace-delimited list of hash values. Each hash value is represented by a hex-encoded digest and is preceded by a token that identifies the utilized hash algorithm, e.g., md5:, sha-256:.",
	Doc: "Checked on <rs:md> and <rs:ln>. For the algorithms rsconform computes (" + rs.ComputedAlgorithms + ") the digest must also have the algorithm's length (32, 40, 64, 128 hex digits); other algorithm tokens are accepted if the digest is hex (RS-HASH-ALGORITHM says whether Destinations will know them). " +
		"Example 27 of the specification uses digests that are not hex (sha-256:f40xZX_x_…): the spec errs there, and rsconform reports them.",
	Requires: []engine.Value{engine.EntryHashes},
	Check: func(p *engine.Pass) error {
		forEachHashAttr(p, func(v string, at attrAt, _ string, hashes []rs.CheckedHash) {
			if len(hashes) == 0 { // v is empty or white space (strings.Fields finds nothing)
				p.Reportf(at.pos(), "hash is empty")
				return
			}
			var seen [8]string // the algorithms given so far (a value gives few)
			n := 0
			for _, h := range hashes {
				if h.Fault != "" {
					p.Reportf(at.pos(), "hash value %q %s", truncateValue(h.Value), h.Fault)
					continue
				}
				alg := h.Alg
				for _, s := range seen[:n] {
					if s == alg {
						p.Reportf(at.pos(), "hash gives algorithm %q twice", alg)
						break
					}
				}
				if n < len(seen) {
					seen[n] = alg
					n++
				}
			}
		})
		return nil
	},
}

// forEachHashAttr calls fn for every hash attribute of the document's
// <rs:md> and <rs:ln> elements, in the order of Pass.ElementsWith, with its
// hash values checked (engine.EntryHashes for the entries' <rs:md>, which the
// rule requires) and where it stands.
func forEachHashAttr(p *engine.Pass, fn func(v string, at attrAt, elem string, hashes []rs.CheckedHash)) {
	var own []rs.CheckedHash // one buffer for the values not shared
	for x := range p.ElementsWith(mdHash.Set(), lnHash.Set()) {
		if x.Md != nil {
			v, _ := x.Md.Attr(mdHash)
			var hashes []rs.CheckedHash
			if x.Entry != nil && x.Md == x.Entry.Md {
				hashes = engine.EntryHashes.Of(p, x.Entry)
			} else {
				own = rs.AppendCheckedHashes(own[:0], v)
				hashes = own
			}
			fn(v, attrAt{md: x.Md, mdKey: mdHash}, "<rs:md>", hashes)
		} else {
			v, _ := x.Ln.Attr(lnHash)
			own = rs.AppendCheckedHashes(own[:0], v)
			fn(v, attrAt{ln: x.Ln, lnKey: lnHash}, "<rs:ln>", own)
		}
	}
}

// The hash attribute, named once.
var mdHash, lnHash = rs.MdAttrOf("hash"), rs.LnAttrOf("hash")

func init() { engine.Register(HashSyntax) }
