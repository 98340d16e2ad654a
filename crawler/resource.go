package crawler

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"io"
	"strings"

	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules"
	"github.com/rsconform/rsconform/sourcehttp"
)

// newHash returns a hash for an algorithm token of the hash attribute
// (section 7), or nil for one rsconform does not know.
func newHash(alg string) hash.Hash {
	switch strings.ToLower(alg) {
	case "md5":
		return md5.New()
	case "sha-1":
		return sha1.New()
	case "sha-256":
		return sha256.New()
	case "sha-512":
		return sha512.New()
	}
	return nil
}

// hashAlgorithms lists the known algorithms a hash attribute names.
func hashAlgorithms(md *rs.Md) []string {
	if md == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, tok := range strings.Fields(md.Hash) {
		alg, _, ok := strings.Cut(tok, ":")
		alg = strings.ToLower(alg)
		if ok && newHash(alg) != nil && !seen[alg] {
			seen[alg] = true
			out = append(out, alg)
		}
	}
	return out
}

// measurer streams a body through the hashes asked for and counts it.
type measurer struct {
	n      int64
	hashes map[string]hash.Hash
}

func newMeasurer(algs []string) *measurer {
	m := &measurer{hashes: map[string]hash.Hash{}}
	for _, a := range algs {
		m.hashes[a] = newHash(a)
	}
	return m
}

func (m *measurer) Write(p []byte) (int, error) {
	m.n += int64(len(p))
	for _, h := range m.hashes {
		h.Write(p)
	}
	return len(p), nil
}

func (m *measurer) facts(truncated bool) *rules.BodyFacts {
	f := &rules.BodyFacts{Length: m.n, Truncated: truncated, Digests: map[string]string{}}
	for a, h := range m.hashes {
		f.Digests[a] = hex.EncodeToString(h.Sum(nil))
	}
	return f
}

// acceptEncodingFor asks for the content coding the entry says the
// resource has, and for none otherwise, so that length and hash are
// compared with the representation the entry describes.
func acceptEncodingFor(md *rs.Md) string {
	if md != nil && strings.TrimSpace(md.Encoding) != "" {
		return strings.TrimSpace(md.Encoding)
	}
	return "identity"
}

// processResource fetches a sampled resource and measures its body; the
// body is never held.
func (c *crawl) processResource(t task) {
	r := c.f.Get(c.ctx, t.url, sourcehttp.Request{AcceptEncoding: acceptEncodingFor(t.edge.Md)})
	defer r.Close()
	var body *rules.BodyFacts
	if r.Err == nil {
		m := newMeasurer(hashAlgorithms(t.edge.Md))
		_, err := io.Copy(m, r.Body)
		body = m.facts(err != nil)
	}
	c.update(func() {
		n := c.graph.Node(t.url)
		n.StatusCode, n.Header, n.Redirects, n.Body = r.Status, r.Header, r.Redirects, body
		if r.Err != nil {
			n.FetchError = r.Err.Error()
		}
		c.stats.Resources++
	})
}
