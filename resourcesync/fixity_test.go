package resourcesync_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	rs "github.com/rsconform/rsconform/resourcesync"
)

var _ = Describe("Fixity attributes [7]", func() {
	DescribeTable("a hash value's problem",
		func(v, problem string) {
			hs := rs.ParseHashes(v)
			Expect(hs).To(HaveLen(1))
			if problem == "" {
				Expect(hs[0].Problem()).To(BeEmpty())
			} else {
				Expect(hs[0].Problem()).To(ContainSubstring(problem))
			}
		},
		Entry("md5", "md5:1584abdf8ebdc9802ac0c6a7402c03b6", ""),
		Entry("upper-case token and hex", "SHA-1:DA39A3EE5E6B4B0D3255BFEF95601890AFD80709", ""),
		Entry("an unknown algorithm with a hex digest", "crc32:0badc0de", ""),
		Entry("sha256 is not sha-256: its length is not checked", "sha256:abc", ""),
		Entry("no token", "1584abdf8ebdc9802ac0c6a7402c03b6", "no algorithm token"),
		Entry("an empty token", ":1584", "no algorithm token"),
		Entry("no digest", "md5:", "no digest"),
		Entry("not hex", "md5:1584abdf8ebdc9802ac0c6a7402c03bz", `character 'z' at position 32`),
		Entry("a short sha-256", "sha-256:abcd", "has 4 hex digits; a sha-256 digest has 64"),
	)

	It("splits a hash attribute at white space as strings.Fields does, Unicode white space included", func() {
		for _, v := range []string{"", " ", "md5:aa", " md5:aa  sha-1:bb ", "\tmd5:aa\r\nsha-1:bb\v\f", "md5:aa\u00a0sha-1:bb", "md5:aa\u0085sha-1:bb", "é:aa md5:bb", "md5:aa é", "a\u2003b c", "md5:aa:bb x:"} {
			var want []string
			for _, h := range rs.ParseHashes(v) {
				want = append(want, h.Value)
			}
			fields := strings.Fields(v)
			if len(fields) == 0 {
				fields = nil
			}
			Expect(want).To(Equal(fields), "%q", v)
		}
	})

	It("splits a hash attribute at white space and names the algorithms rsconform computes once each", func() {
		md := &rs.Md{Hash: " md5:aa\n\tSHA-256:bb sha256:cc md5:dd x "}
		hs := md.Hashes()
		Expect(hs).To(HaveLen(5))
		Expect(hs[1].Token).To(Equal("SHA-256"))
		Expect(hs[1].Algorithm()).To(Equal("sha-256"))
		Expect(hs[4].Token).To(BeEmpty())
		Expect(rs.KnownAlgorithms(hs)).To(Equal([]string{"md5", "sha-256"}))
		Expect(hs[1].Matches("BB")).To(BeTrue())
		Expect((*rs.Md)(nil).Hashes()).To(BeEmpty())
		Expect(rs.NewHash("sha256")).To(BeNil())
	})

	It("checks hash values while splitting them as splitting then checking each does (AppendCheckedHashes)", func() {
		// The slow path: strings.Fields, then Problem on each value.
		slow := func(v string) []rs.CheckedHash {
			var out []rs.CheckedHash
			for _, f := range strings.Fields(v) {
				h := rs.ParseHashes(f)[0]
				out = append(out, rs.CheckedHash{Hash: h, Alg: strings.ToLower(h.Token), Fault: h.Problem()})
			}
			return out
		}
		values := []string{
			"", " ", "md5:1584abdf8ebdc9802ac0c6a7402c03b6", "MD5:1584ABDF8EBDC9802AC0C6A7402C03B6 sha-1:da39a3ee5e6b4b0d3255bfef95601890afd80709",
			"md5:1584abdf8ebdc9802ac0c6a7402c03b", "md5:1584abdf8ebdc9802ac0c6a7402c03bz", "md5:", ":abc", "abc", "md5:aa:bb", "x:",
			"sha-256:ce0d145953ea736df1d115ddfe454fde5ac1957702144691a160e2179da403ee\tcrc32:0badc0de", "md5:aa\u00a0sha-1:bb", "é:aa md5:bb",
			"sha256:abc  SHA-512:00", "md5:aa é", "a\u2003b c", ":", "::", " :a: ",
		}
		// The fast path (knownHash): each algorithm rsconform computes, its
		// digest whole, a digit short or over, a non-hex byte at each place,
		// upper case, followed by white space, another byte or Unicode.
		for _, alg := range []string{"md5", "sha-1", "sha-256", "sha-512"} {
			size := map[string]int{"md5": 32, "sha-1": 40, "sha-256": 64, "sha-512": 128}[alg]
			digest := strings.Repeat("0123456789abcdefABCDEF", 6)[:size]
			for _, d := range []string{digest, digest[1:], digest + "a", strings.ToUpper(digest)} {
				for _, after := range []string{"", " ", "\t", "z", ":", "\u00a0", " md5:" + digest[:32], "  sha-1:bb"} {
					values = append(values, alg+":"+d+after, strings.ToUpper(alg)+":"+d+after, " "+alg+":"+d+after)
				}
			}
			for _, other := range []int{8, 32, 40, 64, 128} { // another algorithm's length
				values = append(values, alg+":"+strings.Repeat("0123456789abcdef", 8)[:other])
			}
			for k := range size {
				values = append(values, alg+":"+digest[:k]+"g"+digest[k+1:], alg+":"+digest[:k]+"é"+digest[k+1:])
			}
		}
		// Random values over the bytes that matter: hex digits, other
		// letters, the colon, ASCII and Unicode white space, algorithm names.
		pieces := []string{"0", "9", "a", "F", "g", "Z", ":", " ", "\t", "\n", "\v", "md5", "MD5", "sha-1", "sha-256", "SHA-512", "Sha-1", "İ", "é", "É", "\u00a0", "\u0085",
			"1584abdf8ebdc9802ac0c6a7402c03b6", "da39a3ee5e6b4b0d3255bfef95601890afd80709"}
		rnd := rand.New(rand.NewPCG(23, 2))
		for range 20000 {
			var b strings.Builder
			for range rnd.IntN(12) {
				b.WriteString(pieces[rnd.IntN(len(pieces))])
			}
			values = append(values, b.String())
		}
		buf := []rs.CheckedHash{{Fault: "left from before"}}
		for _, v := range values {
			buf = rs.AppendCheckedHashes(buf[:1], v)
			// Gomega only for a value that differs (matchers cost under -race).
			if want := slow(v); !slices.Equal(buf[1:], want) {
				Fail(fmt.Sprintf("%q: %q, want %q", v, buf[1:], want))
			}
			var hs []rs.Hash
			for _, h := range buf[1:] {
				hs = append(hs, h.Hash)
				if h.Algorithm() != strings.ToLower(h.Token) {
					Fail(fmt.Sprintf("%q: Algorithm %q, want %q", h.Token, h.Algorithm(), strings.ToLower(h.Token)))
				}
			}
			if got := rs.ParseHashes(v); !slices.Equal(got, hs) {
				Fail(fmt.Sprintf("%q: ParseHashes %q, want %q", v, got, hs))
			}
		}
	})

	It("digests with several algorithms at once", func() {
		d := rs.NewDigester("md5", "SHA-1", "sha256")
		d.Write([]byte("abc"))
		Expect(d.N).To(BeEquivalentTo(3))
		Expect(d.Sums()).To(Equal(map[string]string{
			"md5":   "900150983cd24fb0d6963f7d28e17f72",
			"sha-1": "a9993e364706816aba3e25717850c26c9cd0d89d",
		}))
	})

	DescribeTable("a length is 1*DIGIT",
		func(v string, want int64, ok bool) {
			n, err := rs.ParseLength(v)
			if ok {
				Expect(err).NotTo(HaveOccurred())
				Expect(n).To(Equal(want))
			} else {
				Expect(err).To(HaveOccurred())
			}
		},
		Entry("digits", "8876", int64(8876), true),
		Entry("zero", "0", int64(0), true),
		Entry("empty", "", int64(0), false),
		Entry("a sign", "+5", int64(0), false),
		Entry("white space", " 5", int64(0), false),
		Entry("a unit", "4kB", int64(0), false),
	)

	It("tells an absent length from a bad one and a huge one", func() {
		_, ok, err := (&rs.Md{}).ContentLength()
		Expect(ok).To(BeFalse())
		Expect(err).NotTo(HaveOccurred())
		_, ok, err = (&rs.Ln{Length: "99999999999999999999"}).ContentLength()
		Expect(ok).To(BeTrue())
		Expect(errors.Is(err, rs.ErrLengthRange)).To(BeTrue())
	})
})

var _ = Describe("Link relations [7, RFC 8288]", func() {
	It("compare registered types case-insensitively and extension types (URIs) as written", func() {
		d := &rs.Document{Links: []*rs.Ln{
			{Rel: " UP ", Href: "a"},
			{Rel: "http://www.openarchives.org/rs/terms/PATCH", Href: "b"},
			{Rel: "http://www.openarchives.org/rs/terms/patch", Href: "c"},
		}}
		Expect(d.Link("up").Href).To(Equal("a"))
		Expect(d.LinksByRel("http://www.openarchives.org/rs/terms/patch")).To(HaveLen(1))
		Expect(d.Link("index")).To(BeNil())
	})
})
