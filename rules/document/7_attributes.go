package document

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// Values of the metadata and link attributes of section 7 and Table 3:
// length, type, encoding, change, and the hash algorithm tokens.
// Where each attribute may appear is in 7_attribute_place.go, links in
// 7_links.go, time intervals in 7_time_intervals.go, and elements in
// 7_elements.go.

// attrValue is one occurrence of a ResourceSync attribute on an <rs:md> or
// an <rs:ln>, with where it stands (pos).
type attrValue struct {
	value string
	attrAt
	elem  string    // "<rs:md>" or "<rs:ln>"
	entry *rs.Entry // nil at the top level
}

// attrAt is a ResourceSync attribute of an <rs:md> (md set) or an <rs:ln>
// (ln set), or an item placed at fixed (neither set), whose position pos
// finds only when a finding needs it: the model finds an attribute's
// position by reading its element's start tag again (rs.Md.AttrPos).
type attrAt struct {
	md    *rs.Md
	ln    *rs.Ln
	mdKey rs.MdAttr
	lnKey rs.LnAttr
	fixed rs.Pos
}

func (a attrAt) pos() rs.Pos {
	switch {
	case a.md != nil:
		return a.md.AttrPos(a.mdKey)
	case a.ln != nil:
		return a.ln.AttrPos(a.lnKey)
	}
	return a.fixed
}

// attrValues yields every occurrence of attribute name on the <rs:md>
// (when onMd) and <rs:ln> (when onLn) elements of the document, in the
// order of Pass.ElementsWith. It reads only the elements that carry the
// attribute (Pass.ElementsWith, which a rule of ScopeEntries calls once,
// instead of Entries).
func attrValues(p *engine.Pass, name string, onMd, onLn bool) iter.Seq[attrValue] {
	var md rs.MdAttr = -1
	var ln rs.LnAttr = -1
	if onMd {
		md = rs.MdAttrOf(name)
	}
	if onLn {
		ln = rs.LnAttrOf(name)
	}
	return func(yield func(attrValue) bool) {
		for x := range p.ElementsWith(md.Set(), ln.Set()) {
			var a attrValue
			if x.Md != nil {
				v, _ := x.Md.Attr(md)
				a = attrValue{v, attrAt{md: x.Md, mdKey: md}, "<rs:md>", x.Entry}
			} else {
				v, _ := x.Ln.Attr(ln)
				a = attrValue{v, attrAt{ln: x.Ln, lnKey: ln}, "<rs:ln>", x.Entry}
			}
			if !yield(a) {
				return
			}
		}
	}
}

// 7: "length – ... The value of the length attribute should be equal to
// the value of the Content-Length header in the HTTP response and must be
// computed as defined in RFC 2616, Sec. 4.4."
var LengthSyntax = &engine.Rule{
	ID: "RS-LENGTH-SYNTAX", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "length is a non-negative integer (a Content-Length value)",
	Quote: "length – The value of the attribute conveys the content length of a resource representation returned when the URI in <loc> is dereferenced. The value of the length attribute should be equal to the value of the Content-Length header in the HTTP response and must be computed as defined in RFC 2616, Sec. 4.4.",
	Doc: "Checked on <rs:md> and <rs:ln>. A Content-Length value is 1*DIGIT (RFC 2616, Sec. 14.13): decimal digits only, a number of octets. " +
		"A sign, a decimal point, a unit (\"4 kB\"), digit grouping (\"8,876\") or surrounding white space make the value something a Destination cannot compare with the Content-Length it receives. " +
		"There is no upper bound (Example 27 has length=\"9788456778\"). Whether the value matches the HTTP response is checked by crawling (RS-REP-LENGTH).",
	Check: func(p *engine.Pass) error {
		for a := range attrValues(p, "length", true, true) {
			if msg := attrLengthProblem(a.value); msg != "" {
				p.Reportf(a.pos(), "length %q on %s %s", truncateValue(a.value), a.elem, msg)
			}
		}
		return nil
	},
}

func attrLengthProblem(v string) string {
	_, err := rs.ParseLength(v)
	switch {
	case err == nil || errors.Is(err, rs.ErrLengthRange): // no upper bound
		return ""
	case v == "":
		return "is empty: the length is a number of octets, e.g. length=\"8876\""
	}
	return err.Error() + ": write the number of octets in decimal digits only, as in a Content-Length header"
}

// 7: "type – The value of the attribute conveys the Media Type of a
// resource representation returned when the URI in <loc> is dereferenced.
// Registered values are listed in the IANA MIME Media Type registry."
var TypeSyntax = &engine.Rule{
	ID: "RS-TYPE-SYNTAX", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "type is a media type: type/subtype with optional parameters",
	Quote: "type – The value of the attribute conveys the Media Type of a resource representation returned when the URI in <loc> is dereferenced. Registered values are listed in the IANA MIME Media Type registry.",
	Doc: "Checked on <rs:md> and <rs:ln>. Table 3 takes type from RFC 4287, where it is a media type: type \"/\" subtype *(\";\" parameter), the type, subtype and parameter names being tokens (RFC 2045, Sec. 5.1; RFC 6838, Sec. 4.2), a parameter value a token or a quoted string. " +
		"White space is accepted around \";\" only. Matching is case-insensitive and values are not looked up in the registry (Example 27 uses the experimental application/x-tiff-diff); RS-TYPE-TOPLEVEL hints at top-level types IANA does not know.",
	Check: func(p *engine.Pass) error {
		problems := map[string]string{} // documents repeat a few media types
		for a := range attrValues(p, "type", true, true) {
			msg, ok := problems[a.value]
			if !ok {
				_, msg = attrMediaType(a.value)
				problems[strings.Clone(a.value)] = msg // the entry's string is not kept
			}
			if msg != "" {
				p.Reportf(a.pos(), "type %q on %s %s", truncateValue(a.value), a.elem, msg)
			}
		}
		return nil
	},
}

// attrRegisteredTopLevelTypes are the top-level media types of the IANA
// Media Types registry.
var attrRegisteredTopLevelTypes = map[string]bool{
	"application": true, "audio": true, "example": true, "font": true, "haptics": true, "image": true,
	"message": true, "model": true, "multipart": true, "text": true, "video": true,
}

var TypeTopLevel = &engine.Rule{
	ID: "RS-TYPE-TOPLEVEL", Section: "7", Level: engine.Info, Scope: engine.ScopeEntries,
	Title: "type uses a top-level media type registered with IANA",
	Quote: TypeSyntax.Quote,
	Doc: "The registered top-level types are application, audio, example, font, haptics, image, message, model, multipart, text and video. " +
		"Another top-level type is usually a slip (\"aplication/pdf\", \"pdf/application\") or a private x- type; the specification only says where registered values are listed, so this is a hint, not an error. " +
		"Values RS-TYPE-SYNTAX rejects are not considered here.",
	Check: func(p *engine.Pass) error {
		type verdict struct {
			top string
			ok  bool
		}
		seen := map[string]verdict{} // documents repeat a few media types
		for a := range attrValues(p, "type", true, true) {
			v, done := seen[a.value]
			if !done {
				top, msg := attrMediaType(a.value)
				v = verdict{strings.Clone(top), msg != "" || attrRegisteredTopLevelTypes[strings.ToLower(top)]}
				seen[strings.Clone(a.value)] = v // the entry's strings are not kept
			}
			top := v.top
			if v.ok {
				continue
			}
			p.Reportf(a.pos(), "type %q on %s has top-level type %q, which IANA does not register (registered: application, audio, example, font, haptics, image, message, model, multipart, text, video): a Destination may not recognise the media type", truncateValue(a.value), a.elem, top)
		}
		return nil
	},
}

// attrIsTokenChar reports whether c may appear in an RFC 2045 token: any
// printable US-ASCII character except space and tspecials.
func attrIsTokenChar(c byte) bool {
	if c <= ' ' || c >= 0x7f {
		return false
	}
	return !strings.ContainsRune(`()<>@,;:\"/[]?=`, rune(c))
}

// attrToken returns the length of the RFC 2045 token at the start of s.
func attrToken(s string) int {
	i := 0
	for i < len(s) && attrIsTokenChar(s[i]) {
		i++
	}
	return i
}

// attrMediaType parses a media type and returns its top-level type, or a
// message saying why the value is not a media type.
func attrMediaType(v string) (top, problem string) {
	if v == "" {
		return "", "is empty: a media type is type/subtype, e.g. type=\"text/html\""
	}
	n := attrToken(v)
	if n == 0 {
		return "", fmt.Sprintf("does not start with a type token (character %q at position 1): a media type is type/subtype, e.g. text/html", v[0])
	}
	top, rest := v[:n], v[n:]
	if rest == "" {
		return "", "has no subtype: a media type is type/subtype, e.g. text/html"
	}
	if rest[0] != '/' {
		return "", fmt.Sprintf("has %q after the type where \"/\" is expected: a media type is type/subtype, e.g. text/html", rest[0])
	}
	rest = rest[1:]
	if n = attrToken(rest); n == 0 {
		return "", "has no subtype after \"/\""
	}
	rest = rest[n:]
	for {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return top, ""
		}
		if rest[0] != ';' {
			return "", fmt.Sprintf("has %q where \";\" and a parameter are expected", rest[0])
		}
		rest = strings.TrimLeft(rest[1:], " \t")
		if n = attrToken(rest); n == 0 {
			return "", "has a \";\" not followed by a parameter name=value"
		}
		rest = rest[n:]
		if rest == "" || rest[0] != '=' {
			return "", "has a parameter without \"=value\""
		}
		rest = rest[1:]
		if rest != "" && rest[0] == '"' {
			end := attrQuotedEnd(rest)
			if end < 0 {
				return "", "has an unterminated quoted parameter value"
			}
			rest = rest[end:]
			continue
		}
		if n = attrToken(rest); n == 0 {
			return "", "has a parameter with an empty value"
		}
		rest = rest[n:]
	}
}

// attrQuotedEnd returns the length of the quoted string (RFC 822
// quoted-string) at the start of s, or -1 when it is not terminated.
func attrQuotedEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// 7: "encoding – The value of the attribute conveys what content codings
// have been applied to the resource. The value of the encoding attribute
// should be equal to the value of the content-encoding header in the HTTP
// response, as defined in RFC 2616, Sec. 14.11."
var EncodingSyntax = &engine.Rule{
	ID: "RS-ENCODING-SYNTAX", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "encoding is a comma-separated list of content-coding tokens",
	Quote: "encoding – The value of the attribute conveys what content codings have been applied to the resource. The value of the encoding attribute should be equal to the value of the content-encoding header in the HTTP response, as defined in RFC 2616, Sec. 14.11.",
	Doc: "Checked on <rs:md> and <rs:ln>. The value is a Content-Encoding field value, 1#content-coding (RFC 2616, Sec. 14.11 and 3.5): one or more tokens separated by commas, white space allowed around the commas, e.g. \"gzip\" or \"deflate, gzip\". " +
		"The SHOULD of the quote (equal to the header) is about the HTTP response and is checked by crawling; the syntax is what makes the value a list of content codings at all, so a value that is not one is an error. " +
		"The coding names themselves are not looked up (the IANA HTTP Content Coding registry is open).",
	Check: func(p *engine.Pass) error {
		for a := range attrValues(p, "encoding", true, true) {
			if msg := attrEncodingProblem(a.value); msg != "" {
				p.Reportf(a.pos(), "encoding %q on %s %s", truncateValue(a.value), a.elem, msg)
			}
		}
		return nil
	},
}

func attrEncodingProblem(v string) string {
	codings := 0
	for _, part := range strings.Split(v, ",") {
		part = strings.Trim(part, " \t")
		if part == "" {
			continue // RFC 2616 #rule: null elements are allowed
		}
		if n := attrToken(part); n != len(part) {
			return fmt.Sprintf("is not a list of content codings: %q contains %q, which a token cannot (write codings such as gzip, separated by commas)", part, part[n])
		}
		codings++
	}
	if codings == 0 {
		return "names no content coding: write e.g. encoding=\"gzip\""
	}
	return ""
}

// registeredCodings are the IANA HTTP Content Coding Registry's values
// (https://www.iana.org/assignments/http-parameters, 2024), lower case.
var registeredCodings = map[string]bool{
	"aes128gcm": true, "br": true, "compress": true, "dcb": true, "dcz": true, "deflate": true,
	"exi": true, "gzip": true, "identity": true, "pack200-gzip": true, "x-compress": true,
	"x-gzip": true, "zstd": true,
}

// charsetLike reports whether a token reads as a character encoding
// (UTF-8, ISO-8859-1, US-ASCII, windows-1252...), which the XML
// declaration's encoding attribute takes and the rs one does not.
func charsetLike(t string) bool {
	t = strings.ToLower(t)
	for _, p := range []string{"utf-", "utf8", "utf16", "iso-8859", "iso8859", "us-ascii", "ascii", "latin", "windows-12", "cp12", "shift_jis", "euc-", "gb2312", "gbk", "big5", "koi8", "ucs-"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// 7: "encoding – The value of the attribute conveys what content codings
// have been applied to the resource. The value of the encoding attribute
// should be equal to the value of the content-encoding header in the HTTP
// response, as defined in RFC 2616, Sec. 14.11."
var EncodingCoding = &engine.Rule{
	ID: "RS-ENCODING-CODING", Section: "7", Level: engine.Should, Scope: engine.ScopeEntries,
	Title: "encoding names HTTP content codings (gzip, br...), not a character set",
	Quote: EncodingSyntax.Quote,
	Doc: "A Content-Encoding header carries content codings from the IANA HTTP Content Coding Registry (gzip, deflate, compress, br, zstd, identity, aes128gcm, exi, pack200-gzip, dcb, dcz, and the x-gzip and x-compress aliases), so a value equal to it names those. " +
		"A common mistake writes the character set of the resource (encoding=\"UTF-8\", as in the XML declaration): that is reported with its own message, since a Destination would take it for a compression. Other unregistered tokens are reported too. " +
		"The level is the quote's should (equal to the header): a Source may use a coding its server knows, and a crawl compares the value with the header itself. Coding names compare case-insensitively (RFC 9110, 8.4.1).",
	Check: func(p *engine.Pass) error {
		for a := range attrValues(p, "encoding", true, true) {
			if attrEncodingProblem(a.value) != "" {
				continue // RS-ENCODING-SYNTAX
			}
			for _, part := range strings.Split(a.value, ",") {
				c := strings.Trim(part, " \t")
				if c == "" || registeredCodings[strings.ToLower(c)] {
					continue
				}
				if charsetLike(c) {
					p.Reportf(a.pos(), "encoding %q on %s is a character set, not a content coding: the attribute says how the bytes were compressed, as the Content-Encoding header does (gzip, br, deflate...); drop it for an uncompressed resource, and give the character set in type (type=\"text/html; charset=UTF-8\")", truncateValue(c), a.elem)
				} else {
					p.Reportf(a.pos(), "encoding %q on %s is not a registered HTTP content coding (gzip, deflate, compress, br, zstd, identity...): the value should equal the Content-Encoding header of the response", truncateValue(c), a.elem)
				}
				break // one finding per attribute
			}
		}
		return nil
	},
}

// attrChangeValues are the values of change (sections 7, 12.1, 13.2).
var attrChangeValues = []string{"created", "updated", "deleted"}

// 7: "change – The value of the attribute conveys the type of change that
// a resource underwent. Values defined in this specification are created,
// updated, and deleted"; 12.1: "The value of the change attribute is
// created, updated, or deleted."
var ChangeValue = &engine.Rule{
	ID: "RS-CHANGE-VALUE", Section: "7", Level: engine.Must, Scope: engine.ScopeEntries,
	Title: "change is created, updated or deleted",
	Quote: "change – The value of the attribute conveys the type of change that a resource underwent. Values defined in this specification are created, updated, and deleted, which convey the creation, update, and deletion of a resource, respectively.",
	Doc: "12.1 closes the list for Change Lists (\"The value of the change attribute is created, updated, or deleted\") and 13.2 for Change Dump Manifests (\"The change attribute value may be created, updated, or deleted\"); a Destination cannot act on another value. Values are case-sensitive. " +
		"Checked wherever change appears; whether change belongs there is RS-CHANGE-PLACE, whether it is present where mandatory is RS-CL-CHANGE and RS-CDM-CHANGE.",
	Check: func(p *engine.Pass) error {
		for a := range attrValues(p, "change", true, false) {
			if slices.Contains(attrChangeValues, a.value) {
				continue
			}
			msg := fmt.Sprintf("change %q is not a defined value: the change is created, updated or deleted", truncateValue(a.value))
			for _, c := range attrChangeValues {
				if strings.EqualFold(strings.TrimSpace(a.value), c) {
					msg += fmt.Sprintf(" (values are case-sensitive and without spaces: did you mean %q?)", c)
				}
			}
			p.Reportf(a.pos(), "%s", msg)
		}
		return nil
	},
}

// attrHashAlgorithms are the names of the IANA "Hash Function Textual
// Names" registry, to which the tokens of the specification's examples
// (md5, sha-256) belong.
var attrHashAlgorithms = []string{"md2", "md5", "sha-1", "sha-224", "sha-256", "sha-384", "sha-512", "shake128", "shake256"}

// attrHashRegistered reports whether alg, an algorithm token in lower case
// (CheckedHash.Alg), is one of attrHashAlgorithms: a switch, which
// compares a token with the names of its length in place (it is asked for
// every hash of a list), where slices.Contains calls a comparison per name
// (TestHashRegisteredIsTheList holds the two together).
func attrHashRegistered(alg string) bool {
	switch alg {
	case "md2", "md5", "sha-1", "sha-224", "sha-256", "sha-384", "sha-512", "shake128", "shake256":
		return true
	}
	return false
}

var HashAlgorithm = &engine.Rule{
	ID: "RS-HASH-ALGORITHM", Section: "7", Level: engine.Should, Scope: engine.ScopeEntries,
	Title: "hash algorithm tokens are names a Destination can identify (md5, sha-1, sha-256, sha-512, ...)",
	Quote: "The attribute value is expressed in the form of a whitespace-delimited list of hash values. Each hash value is represented by a hex-encoded digest and is preceded by a token that identifies the utilized hash algorithm, e.g., md5:, sha-256:.",
	Doc: "The token must identify the algorithm to the Destination that verifies the digest. rsconform knows the names of the IANA \"Hash Function Textual Names\" registry, to which the examples of section 7 belong: md2, md5, sha-1, sha-224, sha-256, sha-384, sha-512, shake128, shake256 (compared case-insensitively). " +
		"Section 7 only gives examples (\"e.g., md5:, sha-256:\"), so another token is not an error (RS-HASH-SYNTAX accepts any token with a hex digest), but a Destination will most likely not know how to verify it and will have to ignore the fixity information: a warning. " +
		"Common spellings such as sha256 or SHA1 get a suggestion. Tokens RS-HASH-SYNTAX rejects are not considered here.",
	Requires: []engine.Value{engine.EntryHashes},
	Check: func(p *engine.Pass) error {
		forEachHashAttr(p, func(_ string, at attrAt, elem string, hashes []rs.CheckedHash) {
			for _, h := range hashes {
				// A registered token is enough; a value RS-HASH-SYNTAX
				// rejects is not considered.
				if h.Fault != "" || attrHashRegistered(h.Alg) {
					continue
				}
				alg := h.Token
				msg := fmt.Sprintf("hash algorithm %q on %s is not a registered hash function name (md5, sha-1, sha-256, sha-512, ...): a Destination may not be able to verify the digest", truncateValue(alg), elem)
				if s := attrHashSuggestion(alg); s != "" {
					msg += fmt.Sprintf("; did you mean %q?", s)
				}
				p.Reportf(at.pos(), "%s", msg)
			}
		})
		return nil
	},
}

// attrHashSuggestion proposes a registered name for a common misspelling:
// sha256 for sha-256, SHA_1 for sha-1, md-5 for md5.
func attrHashSuggestion(alg string) string {
	norm := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(alg))
	for _, name := range attrHashAlgorithms {
		if strings.ReplaceAll(name, "-", "") == norm {
			return name
		}
	}
	return ""
}

func init() {
	engine.Register(LengthSyntax, TypeSyntax, TypeTopLevel, EncodingSyntax, EncodingCoding, ChangeValue, HashAlgorithm)
}
