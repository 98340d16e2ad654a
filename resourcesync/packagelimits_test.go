package resourcesync_test

import (
	"archive/zip"
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	rs "github.com/rsconform/rsconform/resourcesync"
)

// zipOf builds a ZIP file of the members given as name, content pairs
// (a name ending in '/' is a folder).
func zipOf(members ...string) *bytes.Reader {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < len(members); i += 2 {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: members[i], Method: zip.Deflate})
		Expect(err).NotTo(HaveOccurred())
		_, err = fw.Write([]byte(members[i+1]))
		Expect(err).NotTo(HaveOccurred())
	}
	Expect(zw.Close()).To(Succeed())
	return bytes.NewReader(buf.Bytes())
}

var _ = Describe("Package limits [11.2, 13.2]", func() {
	open := func(r *bytes.Reader, l rs.PackageLimits) (*rs.Package, error) { return rs.OpenPackage(r, r.Size(), l) }
	limitOf := func(err error) string {
		var le *rs.PackageLimitError
		Expect(err).To(BeAssignableToTypeOf(le))
		return err.(*rs.PackageLimitError).Flag
	}

	It("default to limits no conforming package reaches", func() {
		Expect(rs.PackageLimits{}.WithDefaults()).To(Equal(rs.PackageLimits{MaxBytes: 4 << 30, MaxEntries: 100000, MaxUncompressed: 8 << 30, MaxRatio: 1000}))
		Expect(rs.PackageLimits{MaxRatio: 200}.WithDefaults().MaxRatio).To(Equal(200.0))
	})

	It("refuse every member of a name two members share, once, and keep the others", func() {
		p, err := open(zipOf("manifest.xml", "<urlset/>", "a/", "", "a/b.txt", "one", "a/b.txt", "two", "a/", ""), rs.PackageLimits{})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Members).To(HaveLen(1))
		Expect(p.Members).To(HaveKey("manifest.xml"))
		Expect(p.Refused).To(HaveLen(1))
		Expect(p.Refused[0].Error()).To(Equal(`"a/b.txt": 2 members of this name: unpacked, one overwrites the other, and which is the bitstream depends on the tool`))
		Expect(p.Refusal("a/b.txt")).To(Equal(p.Refused[0]))
		Expect(p.Refusal("manifest.xml")).To(BeNil())
	})

	It("refuse members outside the package's folder by the path policy", func() {
		p, err := open(zipOf("../evil", "x", "ok.txt", "y"), rs.PackageLimits{})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Members).To(HaveKey("ok.txt"))
		Expect(p.Refusal("../evil").Reason).To(ContainSubstring("'..'"))
	})

	It("refuse a package whole for its entries, counted before its directory is read", func() {
		_, err := open(zipOf("a", "1", "b", "2", "c", "3"), rs.PackageLimits{MaxEntries: 2})
		Expect(err).To(MatchError("the ZIP file has 3 entries, more than the limit of 2 (--max-package-entries)"))
		Expect(limitOf(err)).To(Equal("--max-package-entries"))
	})

	It("refuse a package whole for a member expanding more than the ratio, a run of one byte by default", func() {
		// Just over 1 MiB, under which the ratio is not judged.
		const size = 1<<20 + 64<<10
		zeros := string(make([]byte, size))
		_, err := open(zipOf("manifest.xml", "<urlset/>", "zeros.bin", zeros), rs.PackageLimits{})
		Expect(err).To(MatchError(MatchRegexp(`^member "zeros.bin" expands 10\d\d times, more than the limit of 1000: a ZIP bomb\? \(--max-package-ratio\)$`)))
		// Less repetitive data is a bomb only under a lower limit.
		sparse := make([]byte, size)
		for i := 0; i < len(sparse); i += 4096 {
			sparse[i] = byte(i / 4096 % 251)
		}
		sparseZip := zipOf("sparse.bin", string(sparse))
		_, err = open(sparseZip, rs.PackageLimits{})
		Expect(err).NotTo(HaveOccurred())
		_, err = open(sparseZip, rs.PackageLimits{MaxRatio: 200})
		Expect(limitOf(err)).To(Equal("--max-package-ratio"))
		// Under 1 MiB the ratio is not judged.
		_, err = open(zipOf("small.bin", string(make([]byte, 1<<20))), rs.PackageLimits{MaxRatio: 2})
		Expect(err).NotTo(HaveOccurred())
	})

	It("refuse a package whole for what its entries add up to", func() {
		_, err := open(zipOf("a", "12345", "b", "67890"), rs.PackageLimits{MaxUncompressed: 9})
		Expect(err).To(MatchError("the entries add up to 10 bytes uncompressed, more than the limit of 9 (--max-package-uncompressed)"))
	})

	It("refuse a package that expands as a whole more than the ratio (entries sharing their compressed bytes)", func() {
		Expect(rs.PackageLimits{}.CheckArchive(2000, 4<<20)).To(MatchError("the package expands 2097 times (2000 bytes to 4194304), more than the limit of 1000: a ZIP bomb? (--max-package-ratio)"))
		Expect(rs.PackageLimits{}.CheckArchive(5000, 4<<20)).To(Succeed())
		Expect(rs.PackageLimits{}.CheckArchive(10, 1<<20)).To(Succeed(), "under 1 MiB the ratio is not judged")
	})

	It("say a package that is not a ZIP file is not one", func() {
		r := bytes.NewReader([]byte("<html>not found</html>"))
		_, err := rs.OpenPackage(r, r.Size(), rs.PackageLimits{})
		Expect(err).To(MatchError(HavePrefix("not a ZIP file: ")))
	})

	It("say why a download is too large", func() {
		Expect(rs.PackageLimits{MaxBytes: 10}.TooLarge()).To(MatchError("the package is larger than the limit of 10 bytes (--max-package-size)"))
	})
})
