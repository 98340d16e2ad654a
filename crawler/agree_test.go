package crawler_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/destination"
	"github.com/rsconform/rsconform/fixtures"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/sourcehttp"
)

// What the crawl's findings and the sync's problems say of a refused path
// or member: `"NAME": reason`, the text of resourcesync's PathError.
var (
	crawlMember   = regexp.MustCompile(`^ZIP member (".*?": .*): a Destination that unpacks`)
	crawlPath     = regexp.MustCompile(`^path (".*") on <rs:\w+> has (.*)$`)
	syncRefusal   = regexp.MustCompile(`(?:member|path) refused: (".*?": .*?)(?:; fetching the resource instead)?$`)
	refusalReason = func(m []string) string {
		if len(m) == 3 {
			return m[1] + ": " + m[2]
		}
		return m[1]
	}
)

var _ = Describe("A crawl and a sync given the same hostile package", func() {
	for _, name := range []string{"fail-zip-slip", "fail-absolute", "fail-backslash", "fail-symlink", "fail-duplicate"} {
		It("refuse the same paths and members for the same reasons: RS-PKG-UNSAFE-PATH/"+name, func() {
			site, err := fixtures.LoadSite("RS-PKG-UNSAFE-PATH", name)
			Expect(err).NotTo(HaveOccurred())
			srv := serveSite(site)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			opts := testOptions()
			opts.Packages = true
			crawled, err := crawler.Crawl(ctx, srv.URL+"/", opts)
			Expect(err).NotTo(HaveOccurred())
			var fromCrawl []string
			for _, res := range crawled.Results {
				for _, d := range res.Diagnostics {
					for _, re := range []*regexp.Regexp{crawlMember, crawlPath} {
						if m := re.FindStringSubmatch(d.Message); m != nil && (d.Rule == "RS-PKG-UNSAFE-PATH" || d.Rule == "RS-PATH-INSIDE") {
							fromCrawl = append(fromCrawl, refusalReason(m))
						}
					}
				}
			}

			dir := filepath.Join(GinkgoT().TempDir(), "mirror")
			synced, err := destination.Run(ctx, destination.Options{Source: srv.URL + "/", Dir: dir, PreferDumps: true,
				HTTP: sourcehttp.Config{Backoff: 10 * time.Millisecond, Timeout: 5 * time.Second, UserAgent: "rsconform/test"}})
			Expect(err).NotTo(HaveOccurred())
			var fromSync []string
			for _, p := range synced.Problems {
				if m := syncRefusal.FindStringSubmatch(p.Message); m != nil && p.Kind == destination.ProblemPackage {
					fromSync = append(fromSync, refusalReason(m))
				}
			}

			slices.Sort(fromCrawl)
			slices.Sort(fromSync)
			Expect(fromCrawl).NotTo(BeEmpty())
			Expect(slices.Compact(fromSync)).To(Equal(slices.Compact(fromCrawl)), "crawl %q, sync %q", fromCrawl, fromSync)
			// And sync wrote nothing but regular files inside DIR.
			Expect(filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
				Expect(err).NotTo(HaveOccurred())
				Expect(fi.Mode()&os.ModeSymlink).To(BeZero(), p)
				return nil
			})).To(Succeed())
			Expect(filepath.Join(filepath.Dir(dir), "res3.txt")).NotTo(BeAnExistingFile())
		})
	}

	// A member expanding some 500 times once failed the crawl (over 200)
	// and synced (under 1,000): one limit now, one refusal, one reason.
	Describe("holding a ZIP bomb between the crawl's old ratio limit and sync's", func() {
		refusals := func(limits rs.PackageLimits) (crawlStatus engine.Status, fromCrawl string, fromSync []string, unpacked int) {
			site, err := fixtures.Template("zip-bomb")
			Expect(err).NotTo(HaveOccurred())
			srv := serveSite(site)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			pkg := srv.URL + "/dataset1/part1.zip"

			opts := testOptions()
			opts.Packages, opts.PackageLimits = true, limits
			crawled, err := crawler.Crawl(ctx, srv.URL+"/", opts)
			Expect(err).NotTo(HaveOccurred())
			res := result(crawled, pkg)
			Expect(res).NotTo(BeNil())
			crawlStatus, fromCrawl = res.Status, strings.TrimPrefix(res.Error, "not checked: ")

			synced, err := destination.Run(ctx, destination.Options{Source: srv.URL + "/", Dir: filepath.Join(GinkgoT().TempDir(), "mirror"),
				PreferDumps: true, PackageLimits: limits, HTTP: sourcehttp.Config{Backoff: 10 * time.Millisecond, Timeout: 5 * time.Second, UserAgent: "rsconform/test"}})
			Expect(err).NotTo(HaveOccurred())
			for _, p := range synced.Problems {
				if p.Kind == destination.ProblemPackage && strings.HasPrefix(p.Message, pkg+": ") {
					fromSync = append(fromSync, strings.TrimPrefix(p.Message, pkg+": "))
				}
			}
			return crawlStatus, fromCrawl, fromSync, synced.Packages
		}

		It("accept it alike by default", func() {
			status, fromCrawl, fromSync, unpacked := refusals(rs.PackageLimits{})
			// Checked (invalid only for RS-PKG-UNLISTED: the manifest does
			// not describe the member) and unpacked.
			Expect(status).To(Equal(engine.StatusInvalid), fromCrawl)
			Expect(fromCrawl).To(BeEmpty())
			Expect(fromSync).To(BeEmpty())
			Expect(unpacked).To(Equal(1))
		})

		It("refuse it whole alike, for the same reason, under a lower --max-package-ratio", func() {
			status, fromCrawl, fromSync, unpacked := refusals(rs.PackageLimits{MaxRatio: 200})
			Expect(status).To(Equal(engine.StatusError))
			Expect(fromCrawl).To(MatchRegexp(`^member "resources/sparse.bin" expands \d+ times, more than the limit of 200: a ZIP bomb\? \(--max-package-ratio\)$`))
			Expect(fromSync).To(Equal([]string{fromCrawl}))
			Expect(unpacked).To(BeZero())
		})
	})
})
