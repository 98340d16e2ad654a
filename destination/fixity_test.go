package destination_test

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/destination"
	rs "github.com/rsconform/rsconform/resourcesync"
)

var _ = Describe("Fixity attributes [7]", Label("Section:7"), func() {
	data := []byte("the representation")
	m5, s1, s256, s512 := md5.Sum(data), sha1.Sum(data), sha256.Sum256(data), sha512.Sum512(data)
	all := map[string]string{"md5": hex.EncodeToString(m5[:]), "sha-1": hex.EncodeToString(s1[:]),
		"sha-256": hex.EncodeToString(s256[:]), "sha-512": hex.EncodeToString(s512[:])}
	sums := destination.Digest([]string{"md5", "sha-1", "sha-256", "sha-512"}, data)

	It("computes the four digests", func() {
		Expect(sums).To(Equal(all))
	})

	DescribeTable("reads hash and length, and checks a download against them",
		func(hash, length string, wantAlgs []string, notes int, matches bool) {
			md := &rs.Md{Hash: hash, Length: length}
			f, ns := destination.FixityOfMd(md)
			Expect(ns).To(HaveLen(notes))
			var algs []string
			for a := range f.Hashes {
				algs = append(algs, a)
			}
			Expect(algs).To(ConsistOf(wantAlgs))
			err := f.Check("http://h/r", int64(len(data)), sums)
			if matches {
				Expect(err).NotTo(HaveOccurred())
			} else {
				Expect(err).To(BeAssignableToTypeOf(&destination.FixityError{}))
			}
		},
		Entry("md5", "md5:"+all["md5"], "", []string{"md5"}, 0, true),
		Entry("sha-1", "sha-1:"+all["sha-1"], "", []string{"sha-1"}, 0, true),
		Entry("sha-256", "sha-256:"+all["sha-256"], "18", []string{"sha-256"}, 0, true),
		Entry("sha-512", "sha-512:"+all["sha-512"], "", []string{"sha-512"}, 0, true),
		Entry("all four, upper-case hex, extra whitespace", "md5:"+strings.ToUpper(all["md5"])+"\n  sha-1:"+all["sha-1"]+" sha-256:"+all["sha-256"]+" sha-512:"+all["sha-512"],
			"18", []string{"md5", "sha-1", "sha-256", "sha-512"}, 0, true),
		Entry("a wrong md5", "md5:"+strings.Repeat("0", 32), "", []string{"md5"}, 0, false),
		Entry("a wrong sha-512 next to a right md5", "md5:"+all["md5"]+" sha-512:"+strings.Repeat("a", 128), "", []string{"md5", "sha-512"}, 0, false),
		Entry("a wrong length", "", "17", nil, 0, false),
		Entry("an unknown algorithm is noted and ignored", "crc32:0badc0de md5:"+all["md5"], "", []string{"md5"}, 1, true),
		Entry("a value that is not hex is noted and ignored", "md5:1584abdf8ebdc9802ac0c6a7402c03bz", "", nil, 1, true),
		Entry("a length that is not a number", "", "many", nil, 1, true),
		Entry("a length with a sign is not a Content-Length either", "", "+18", nil, 1, true),
		// One answer everywhere: sha256 is not a registered name, so the
		// Destination does not take it for sha-256 (RS-HASH-ALGORITHM warns).
		Entry("sha256 (not the registered sha-256) is noted and ignored", "sha256:"+all["sha-256"], "", nil, 1, true),
	)

	It("tells a copy that is the representation described from one it cannot judge", func() {
		f, _ := destination.FixityOfMd(&rs.Md{Hash: "md5:" + all["md5"], Length: "18"})
		Expect(f.SameAs(18, sums)).To(BeTrue())
		Expect(f.SameAs(18, map[string]string{"sha-256": all["sha-256"]})).To(BeFalse()) // no digest in common
		Expect(f.SameAs(19, sums)).To(BeFalse())
	})
})
