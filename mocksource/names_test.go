package mocksource_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

var _ = Describe("Resource names and sizes that test a Destination's mapping (issue 24)", func() {
	It("serves each odd name as its own resource, as documents write it and as clients escape it", func() {
		m := startScenario("resource-names", mocksource.Options{})
		m.step()
		exp := m.src.Expected()
		for _, k := range []string{"/res/names/a%2Fb.txt", "/res/names/a/b.txt", "/res/names/a%20b.txt", "/res/names/100%25.txt",
			"/res/names/q.txt", "/res/names/q.txt?page=1", "/res/names/q.txt?page=2", "/res/names/caf%C3%A9.txt",
			"/res/names/Case.txt", "/res/names/case.txt"} {
			Expect(exp).To(HaveKey(k))
		}
		seen := map[string]string{}
		for _, req := range []struct{ path, key string }{
			{"/res/names/a%2Fb.txt", "/res/names/a%2Fb.txt"},
			{"/res/names/a%2fb.txt", "/res/names/a%2Fb.txt"}, // hex case does not matter
			{"/res/names/a/b.txt", "/res/names/a/b.txt"},
			{"/res/names/q.txt?page=2", "/res/names/q.txt?page=2"},
			{"/res/names/q.txt", "/res/names/q.txt"},
			{"/res/names/caf%C3%A9.txt", "/res/names/caf%C3%A9.txt"},
			{"/res/names/Case.txt", "/res/names/Case.txt"},
			{"/res/names/c%61se.txt", "/res/names/case.txt"}, // an escaped unreserved letter is the letter
		} {
			resp, body := m.get(req.path)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), req.path)
			sum := sha256.Sum256(body)
			Expect(hex.EncodeToString(sum[:])).To(Equal(exp[req.key].SHA256), req.path)
			seen[req.key] = exp[req.key].SHA256
		}
		Expect(seen["/res/names/a%2Fb.txt"]).NotTo(Equal(seen["/res/names/a/b.txt"]))
		Expect(seen["/res/names/q.txt"]).NotTo(Equal(seen["/res/names/q.txt?page=2"]))
		Expect(seen["/res/names/Case.txt"]).NotTo(Equal(seen["/res/names/case.txt"]))
		resp, _ := m.get("/res/names/q.txt?page=3")
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))

		// The Change List writes the IRI raw and the escapes as given.
		_, cl := m.get("/dataset1/changelist.xml")
		Expect(string(cl)).To(ContainSubstring("/res/names/café.txt</loc>"))
		Expect(string(cl)).To(ContainSubstring("/res/names/a%2Fb.txt</loc>"))
		Expect(string(cl)).To(ContainSubstring("/res/names/q.txt?page=2</loc>"))

		// The log names the resource by its key, the query apart.
		var logged []string
		for _, r := range m.src.Log() {
			logged = append(logged, r.Path+"?"+r.Query)
		}
		Expect(logged).To(ContainElements("/res/names/a%2Fb.txt?", "/res/names/q.txt?page=2", "/res/names/caf%C3%A9.txt?"))
	})

	It("takes a query written as a path is, and serves it as clients escape it", func() {
		sc, err := scenario.Parse("s.yaml", []byte("name: s\nsteps:\n  - after: 1h\n    actions:\n"+
			"      - create: {path: \"/res/q.txt?name=caf\u00e9\", type: text/plain}\n"+
			"      - create: {path: \"/res/q.txt?a=%2F\", type: text/plain}\n"))
		Expect(err).NotTo(HaveOccurred())
		m := startMock(mocksource.Options{Scenario: sc})
		m.step()
		for _, q := range []string{"?name=caf%C3%A9", "?a=%2F", "?a=%2f"} {
			resp, _ := m.get("/res/q.txt" + q)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), q)
		}
	})

	It("generates large bodies of the size asked, the same on every request, cheaply", func() {
		m := startScenario("large-bodies", mocksource.Options{})
		m.step()
		exp := m.src.Expected()
		for path, size := range map[string]int{"/res/large/one-mebibyte.bin": 1 << 20, "/res/large/text.txt": 1536 << 10,
			"/res/large/sixteen-mebibytes.bin": 16 << 20} {
			Expect(exp[path].Length).To(Equal(size), path)
			_, a := m.get(path)
			_, b := m.get(path)
			Expect(a).To(HaveLen(size))
			Expect(a).To(Equal(b))
			sum := sha256.Sum256(a)
			Expect(hex.EncodeToString(sum[:])).To(Equal(exp[path].SHA256))
			// Not the pool's 64 KiB over and over.
			Expect(a[:4096]).NotTo(Equal(a[64<<10 : 64<<10+4096]))
		}
		_, txt := m.get("/res/large/text.txt")
		Expect(string(txt)).To(HavePrefix("resource /res/large/text.txt version 1\n"))
		before := exp["/res/large/text.txt"].SHA256
		m.step()
		Expect(m.src.Expected()["/res/large/text.txt"].SHA256).NotTo(Equal(before))
		Expect(m.src.Expected()["/res/large/text.txt"].Length).To(Equal(1536 << 10))
	})

	It("publishes a Resource Dump with the initial state when the scenario asks", func() {
		m := startScenario("baseline-resourcedump", mocksource.Options{})
		resp, body := m.get("/dataset1/resourcedump.xml")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(strings.Count(string(body), "<url>")).To(Equal(3))
		_, capl := m.get("/dataset1/capabilitylist.xml")
		Expect(string(capl)).To(ContainSubstring(`capability="resourcedump"`))
	})
})
