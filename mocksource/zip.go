package mocksource

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"io"
	"time"
)

// buildPackage writes the ZIP package k of Resource Dump n (fam famRD) or
// package n of the Change Dump (fam famCD): manifest.xml at the top level,
// then one member per bitstream at the path the manifest gives (without
// its leading slash). Member times are virtual, so packages are
// byte-for-byte reproducible.
func (r *renderer) buildPackage(fam, n, k int) ([]byte, bool) {
	type member struct {
		name string
		vi   vinfo
	}
	var (
		manifest []byte
		members  []member
		at       time.Time
	)
	if fam == famRD {
		m, vis, ok := r.rdManifestDoc(n, k)
		if !ok {
			return nil, false
		}
		manifest, at = m, r.w.rd[n-1].at
		for _, vi := range vis {
			members = append(members, member{name: "resources" + vi.path, vi: vi})
		}
	} else {
		m, cs, ok := r.cdManifestDoc(n)
		if !ok {
			return nil, false
		}
		manifest, at = m, r.w.pkgs[n-1].until
		for _, c := range cs {
			if c.kind == chDeleted {
				continue
			}
			path := r.w.res[c.id].path
			members = append(members, member{name: cdMemberPath(c, path)[1:], vi: r.w.vinfoOf(c.id, path, c.v)})
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	// One compressor for the package's members, at flate.BestSpeed: zip's
	// default (level 6) clears 640 KiB of match tables for every member,
	// which made building packages most of the mock's CPU (many times
	// more under the race detector, where tests run it). Any Deflate
	// reader reads either.
	var fl *flate.Writer
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		if fl == nil {
			var err error
			fl, err = flate.NewWriter(w, flate.BestSpeed)
			return fl, err
		}
		fl.Reset(w)
		return fl, nil
	})
	write := func(name string, mod time.Time, data []byte) {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mod.UTC()})
		if err == nil {
			_, err = fw.Write(data)
		}
		if err != nil {
			panic("mocksource: writing a package in memory: " + err.Error())
		}
	}
	write("manifest.xml", at, manifest)
	bp := getBuf()
	for _, m := range members {
		b := appendBody((*bp)[:0], m.vi.key, m.vi.path, m.vi.n, m.vi.typ, m.vi.size)
		*bp = b
		write(m.name, m.vi.at, b)
	}
	putBuf(bp)
	if err := zw.Close(); err != nil {
		panic("mocksource: closing a package in memory: " + err.Error())
	}
	return buf.Bytes(), true
}
