package discovery_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/destination"
	"github.com/rsconform/rsconform/discovery"
	"github.com/rsconform/rsconform/fixtures"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
	"github.com/rsconform/rsconform/sourcehttp"
)

var _ = Describe("Parsing what discovery reads [6.3]", Label("Section:6.3"), func() {
	It("reads robots.txt Sitemap directives, comments stripped, with their lines", func() {
		got := discovery.FromRobots("http://a.example/robots.txt", []byte(
			"User-agent: *\n# Sitemap: http://a.example/commented.xml\nSITEMAP: /cl.xml   # the Capability List\nsitemap:http://b.example/x.xml#frag\nSitemap:\n"))
		Expect(got).To(Equal([]discovery.Target{
			{Method: discovery.MethodRobots, URL: "http://a.example/cl.xml", From: "http://a.example/robots.txt", Line: 3},
			{Method: discovery.MethodRobots, URL: "http://b.example/x.xml", From: "http://a.example/robots.txt", Line: 4},
		}))
	})

	It("reads a page's Link headers, then its HTML links, resolved", func() {
		h := http.Header{"Link": {`</a.xml>; rel="resourcesync", </b.xml>; rel=other`}}
		body := []byte("<!DOCTYPE html>\n<html><head>\n<link rel=\"stylesheet\" href=\"s.css\">\n<LINK REL=\"ResourceSync\" HREF=\"c.xml#top\"/>\n</head></html>")
		Expect(discovery.FromPage("http://a.example/dir/page", h, body)).To(Equal([]discovery.Target{
			{Method: discovery.MethodHTTPLink, URL: "http://a.example/a.xml", From: "http://a.example/dir/page"},
			{Method: discovery.MethodHTMLLink, URL: "http://a.example/dir/c.xml", From: "http://a.example/dir/page", Line: 4},
		}))
	})

	It("derives the well-known URI and robots.txt of a site", func() {
		u, _ := url.Parse("https://a.example:8443/some/page?q=1")
		Expect(discovery.WellKnown(u)).To(Equal("https://a.example:8443/.well-known/resourcesync"))
		Expect(discovery.RobotsTxt(u)).To(Equal("https://a.example:8443/robots.txt"))
		Expect(discovery.IsSiteRoot(u)).To(BeFalse())
		u, _ = url.Parse("https://a.example")
		Expect(discovery.IsSiteRoot(u)).To(BeTrue())
	})
})

// site serves the good fixture Source with one discovery method left: the
// others (well-known URI, robots.txt, the page's HTML link, a Link header)
// are taken away.
func site(method string) *httptest.Server {
	good, err := fixtures.Template("good")
	Expect(err).NotTo(HaveOccurred())
	h := good.Handler()
	const plainPage = "<!DOCTYPE html>\n<html><head><title>Example</title></head><body>No link here.</body></html>\n"
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case discovery.WellKnownPath:
			if method != discovery.MethodWellKnown {
				http.NotFound(w, r)
				return
			}
		case "/robots.txt":
			if method != discovery.MethodRobots {
				http.NotFound(w, r)
				return
			}
			// A comment after the URL: the crawl and sync must both strip it.
			fmt.Fprintf(w, "User-agent: *\n# Sitemap: http://%s/nothing.xml\nSitemap: http://%s/dataset1/capabilitylist.xml  # our Capability List\n", r.Host, r.Host)
			return
		case "/", "/index.html":
			w.Header().Set("Content-Type", "text/html")
			switch method {
			case discovery.MethodHTMLLink:
			case discovery.MethodHTTPLink:
				w.Header().Set("Link", `</dataset1/capabilitylist.xml>; rel="resourcesync"`)
				fmt.Fprint(w, plainPage)
				return
			default:
				fmt.Fprint(w, plainPage)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
}

var _ = Describe("The crawl and sync discover alike [6.3]", Label("Section:6.3"), func() {
	sv, err := frontend.New()
	if err != nil {
		panic(err)
	}
	DescribeTable("from a site root, by each method alone, the same Capability Lists",
		func(method string) {
			srv := site(method)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			rep, err := crawler.Crawl(ctx, srv.URL+"/", crawler.Options{
				Validator: &engine.Validator{Schema: sv}, HTTP: sourcehttp.Config{Timeout: 5 * time.Second, Retries: sourcehttp.NoRetries},
				Sample: crawler.SampleNone, SampleSet: true,
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(rep.EntryError).NotTo(HaveOccurred())
			var crawled []string
			for _, n := range rep.Graph.Nodes {
				if n.Doc != nil && n.Kind == rs.CapabilityList {
					crawled = append(crawled, n.URL)
				}
			}
			sort.Strings(crawled)
			methods := map[string]bool{}
			for _, d := range rep.Discovered() {
				methods[strings.SplitN(d, ":", 2)[0]] = true
			}
			Expect(methods).To(HaveKey(method), "the crawl reports how it found the Source: %v", rep.Discovered())

			srep, err := destination.Run(ctx, destination.Options{
				Source: srv.URL + "/", Dir: GinkgoT().TempDir(), Mode: destination.ModeAudit,
				HTTP: sourcehttp.Config{Timeout: 5 * time.Second, Retries: sourcehttp.NoRetries},
			})
			Expect(err).NotTo(HaveOccurred())
			var synced []string
			for _, s := range srep.Sets {
				synced = append(synced, s.CapabilityList)
			}
			sort.Strings(synced)

			Expect(crawled).To(Equal([]string{srv.URL + "/dataset1/capabilitylist.xml"}))
			Expect(synced).To(Equal(crawled))
		},
		Entry("the well-known URI", discovery.MethodWellKnown),
		Entry("robots.txt, with a comment", discovery.MethodRobots),
		Entry("an HTML link", discovery.MethodHTMLLink),
		Entry("an HTTP Link header", discovery.MethodHTTPLink),
	)
})
