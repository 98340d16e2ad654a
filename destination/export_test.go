package destination

import rs "github.com/rsconform/rsconform/resourcesync"

// Exported for the tests of package destination_test.

var FixityOfMd = fixityOf

func (f Fixity) Check(url string, length int64, sums map[string]string) error {
	return f.check(url, length, sums)
}

func (f Fixity) SameAs(length int64, sums map[string]string) bool { return f.sameAs(length, sums) }

func Digest(algs []string, data []byte) map[string]string {
	d := rs.NewDigester(algs...)
	d.Write(data)
	return d.Sums()
}
