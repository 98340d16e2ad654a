package rules

import (
	"fmt"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// Fixity attributes of section 7: hash.

// digestHexLen is the hex length of the digests whose algorithm rsconform
// knows; the tokens are those of the Atom Link Extensions draft the hash
// attribute comes from.
var digestHexLen = map[string]int{"md5": 32, "sha-1": 40, "sha-256": 64, "sha-512": 128}

// 7: "hash – ... The attribute value is expressed in the form of a
// whitespace-delimited list of hash values. Each hash value is represented
// by a hex-encoded digest and is preceded by a token that identifies the
// utilized hash algorithm, e.g., md5:, sha-256:."
var HashSyntax = &Rule{
	ID: "RS-HASH-SYNTAX", Section: "7", Level: Must,
	Title: "hash is a whitespace-delimited list of algorithm:hexdigest with the algorithm's digest length",
	Quote: "The attribute value is expressed in the form of a whitespace-delimited list of hash values. Each hash value is represented by a hex-encoded digest and is preceded by a token that identifies the utilized hash algorithm, e.g., md5:, sha-256:.",
	Doc: "Checked on <rs:md> and <rs:ln>. For md5, sha-1, sha-256 and sha-512 the digest must also have the algorithm's length (32, 40, 64, 128 hex digits); other algorithm tokens are accepted if the digest is hex (RS-HASH-ALGORITHM says whether Destinations will know them). " +
		"Example 27 of the specification uses digests that are not hex (sha-256:f40xZX_x_…): the spec errs there, and rsconform reports them.",
	Check: func(p *Pass) error {
		check := func(v string, pos rs.Pos) {
			if strings.TrimSpace(v) == "" {
				p.Reportf(pos, "hash is empty")
				return
			}
			var seen [8]string // the algorithms given so far (a value gives few)
			n := 0
			for tok := range strings.FieldsSeq(v) {
				if msg := hashTokenProblem(tok); msg != "" {
					p.Reportf(pos, "hash value %q %s", truncateValue(tok), msg)
					continue
				}
				alg := tok[:strings.IndexByte(tok, ':')]
				for _, s := range seen[:n] {
					if strings.EqualFold(s, alg) {
						p.Reportf(pos, "hash gives algorithm %q twice", strings.ToLower(alg))
						break
					}
				}
				if n < len(seen) {
					seen[n] = alg
					n++
				}
			}
		}
		for _, ref := range p.mds() {
			if v, ok := ref.md.Get("hash"); ok {
				check(v, ref.md.AttrPosition("hash"))
			}
		}
		for _, ref := range p.lns() {
			if v, ok := ref.ln.Get("hash"); ok {
				check(v, ref.ln.AttrPosition("hash"))
			}
		}
		return nil
	},
}

var isHex = func() (t [256]bool) {
	for _, c := range "0123456789abcdefABCDEF" {
		t[c] = true
	}
	return
}()

func hashTokenProblem(tok string) string {
	i := strings.IndexByte(tok, ':')
	if i <= 0 {
		return "has no algorithm token: write algorithm:hexdigest, e.g. md5:1584abdf8ebdc9802ac0c6a7402c03b6"
	}
	alg, digest := tok[:i], tok[i+1:]
	if digest == "" {
		return "has no digest after the algorithm token"
	}
	for j := 0; j < len(digest); j++ {
		if !isHex[digest[j]] {
			return fmt.Sprintf("is not hex-encoded (character %q at position %d of the digest)", digest[j], j+1)
		}
	}
	if n, ok := digestHexLen[strings.ToLower(alg)]; ok && len(digest) != n {
		return fmt.Sprintf("has %d hex digits; a %s digest has %d", len(digest), strings.ToLower(alg), n)
	}
	return ""
}

func init() { register(HashSyntax) }
