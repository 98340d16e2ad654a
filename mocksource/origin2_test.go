package mocksource_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

var _ = Describe("A Source on two origins (scenario second-origin)", func() {
	var (
		src        *mocksource.Source
		one, two   *httptest.Server
		getFrom    func(base, p string) (int, []byte)
		sha256Text func([]byte) string
	)
	BeforeEach(func() {
		sc, err := scenario.Load(scenario.Origin2Name)
		Expect(err).NotTo(HaveOccurred())
		src, err = mocksource.New(mocksource.Options{Scenario: sc})
		Expect(err).NotTo(HaveOccurred())
		one, two = httptest.NewServer(src.Handler()), httptest.NewServer(src.Origin2Handler())
		DeferCleanup(one.Close)
		DeferCleanup(two.Close)
		src.SetBaseURL(one.URL)
		src.SetOrigin2URL(two.URL)
		getFrom = func(base, p string) (int, []byte) {
			resp, err := http.Get(base + p)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			return resp.StatusCode, b
		}
		sha256Text = func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
		_, err = src.Step()
		Expect(err).NotTo(HaveOccurred())
	})

	It("lists the second origin's resources there, serves them there only, and keeps the two /res/0000000.txt apart", func() {
		status, list := getFrom(one.URL, "/dataset1/resourcelist.xml")
		Expect(status).To(Equal(http.StatusOK))
		Expect(string(list)).To(ContainSubstring("<loc>" + two.URL + "/res/0000000.txt</loc>"))
		Expect(string(list)).To(ContainSubstring("<loc>" + one.URL + "/res/0000000.txt</loc>"))
		Expect(string(list)).NotTo(ContainSubstring("/origin2/"))

		want := src.Expected()
		Expect(want).To(HaveKey("/origin2/res/only-here.html"))
		status, b2 := getFrom(two.URL, "/res/0000000.txt")
		Expect(status).To(Equal(http.StatusOK))
		Expect(sha256Text(b2)).To(Equal(want["/origin2/res/0000000.txt"].SHA256))
		status, b1 := getFrom(one.URL, "/res/0000000.txt")
		Expect(status).To(Equal(http.StatusOK))
		Expect(sha256Text(b1)).To(Equal(want["/res/0000000.txt"].SHA256))
		Expect(b1).NotTo(Equal(b2))

		// Neither origin serves the other's: not the documents, not the
		// resources, not the control API.
		for _, p := range []string{"/origin2/res/0000000.txt", "/origin2/res/only-here.html"} {
			status, _ := getFrom(one.URL, p)
			Expect(status).To(Equal(http.StatusNotFound), p)
		}
		for _, p := range []string{"/res/0000001.html", "/.well-known/resourcesync", "/dataset1/resourcelist.xml", "/_rsconform/status"} {
			status, _ := getFrom(two.URL, p)
			Expect(status).To(Equal(http.StatusNotFound), p)
		}

		var origin2 []string
		for _, r := range src.Log() {
			if r.Origin == 2 {
				origin2 = append(origin2, r.Path)
			}
		}
		Expect(origin2).To(Equal([]string{"/res/0000000.txt", "/res/0000001.html", "/.well-known/resourcesync", "/dataset1/resourcelist.xml", "/_rsconform/status"}))
	})

	It("serves the second origin's resources on the first, at /origin2/, when there is no second origin", func() {
		src.SetOrigin2URL("")
		_, list := getFrom(one.URL, "/dataset1/resourcelist.xml")
		Expect(string(list)).To(ContainSubstring("<loc>" + one.URL + "/origin2/res/0000000.txt</loc>"))
		status, b := getFrom(one.URL, "/origin2/res/0000000.txt")
		Expect(status).To(Equal(http.StatusOK))
		Expect(sha256Text(b)).To(Equal(src.Expected()["/origin2/res/0000000.txt"].SHA256))
		Expect(strings.Count(string(list), "/origin2/")).To(Equal(3))
	})
})
