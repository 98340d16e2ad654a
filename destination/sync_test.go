package destination_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/destination"
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/sourcehttp"
)

var _ = Describe("Baseline synchronisation [5.2, 10.1, 10.2]", Label("Section:5.2"), func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("copies every resource of a Resource List, discovering it from the site root", func() {
		src := newTestSource(30)
		rep := run(src.opts(dir))
		Expect(rep.Problems).To(BeEmpty())
		Expect(rep.Fetched).To(Equal(30))
		src.expectMirror(dir)
		for _, l := range src.requests() {
			Expect(l.ua).To(Equal("rsconform/test"))
		}
		Expect(filepath.Join(dir, destination.StateFileName)).To(BeARegularFile())
	})

	It("downloads nothing again when run once more (hash in the list)", func() {
		src := newTestSource(20)
		run(src.opts(dir))
		src.clearLog()
		o := src.opts(dir)
		o.Mode = destination.ModeBaseline
		rep := run(o)
		Expect(rep.Fetched).To(Equal(0))
		Expect(rep.Unchanged).To(Equal(20))
		Expect(src.resourceGets()).To(BeEmpty())
	})

	It("follows a Resource List Index and unions its lists", func() {
		src := newTestSource(25)
		src.maxEntries = 10
		rep := run(src.opts(dir))
		Expect(rep.Problems).To(BeEmpty())
		Expect(rep.Sets[0].Baseline).To(HaveSuffix("/resourcelist.xml"))
		src.expectMirror(dir)
	})

	It("removes copies of resources a new snapshot no longer lists", func() {
		src := newTestSource(10)
		src.noChanges = true
		run(src.opts(dir))
		src.remove("/res/003.txt")
		src.publish()
		rep := run(src.opts(dir))
		Expect(rep.Deleted).To(Equal(1))
		Expect(filepath.Join(dir, "res/003.txt")).NotTo(BeAnExistingFile())
		src.expectMirror(dir)
	})

	It("uses conditional requests when the list gives neither hash nor lastmod, and keeps the copy on 304", func() {
		src := newTestSource(5)
		src.noHash, src.noLastmod, src.noChanges = true, true, true
		run(src.opts(dir))
		src.clearLog()
		rep := run(src.opts(dir))
		Expect(rep.Unchanged).To(Equal(5))
		Expect(rep.Fetched).To(Equal(0))
		n := 0
		for _, l := range src.requests() {
			if strings.HasPrefix(l.path, "/res/") {
				Expect(l.inm).NotTo(BeEmpty())
				Expect(l.status).To(Equal(http.StatusNotModified))
				n++
			}
		}
		Expect(n).To(Equal(5))
		src.expectMirror(dir)
	})

	It("skips without a request a resource whose lastmod did not change (no hash given)", func() {
		src := newTestSource(5)
		src.noHash, src.noChanges = true, true
		run(src.opts(dir))
		src.clearLog()
		o := src.opts(dir)
		o.Mode = destination.ModeBaseline
		rep := run(o)
		Expect(rep.Unchanged).To(Equal(5))
		Expect(src.resourceGets()).To(BeEmpty())
	})

	It("adopts matching copies when the state is lost, without downloading them", func() {
		src := newTestSource(8)
		run(src.opts(dir))
		Expect(os.Remove(filepath.Join(dir, destination.StateFileName))).To(Succeed())
		src.clearLog()
		rep := run(src.opts(dir))
		Expect(rep.Unchanged).To(Equal(8))
		Expect(src.resourceGets()).To(BeEmpty())
	})
})

var _ = Describe("Baseline from a Resource Dump [11.1, 11.2]", Label("Section:11.1"), func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("downloads the packages, checks manifest.xml and unpacks every bitstream by its path", func() {
		src := newTestSource(25)
		src.dump, src.pkgSize = true, 10
		o := src.opts(dir)
		o.PreferDumps = true
		rep := run(o)
		Expect(rep.Problems).To(BeEmpty())
		Expect(rep.Packages).To(Equal(3))
		Expect(rep.Fetched).To(Equal(25))
		Expect(src.resourceGets()).To(BeEmpty())
		Expect(rep.Sets[0].Baseline).To(HaveSuffix("/resourcedump.xml"))
		src.expectMirror(dir)
	})

	It("falls back to the resource's URI when a bitstream fails fixity", func() {
		src := newTestSource(6)
		src.dump = true
		src.pkgOverride = func(k int, ms []zipMember) []zipMember {
			for i := range ms {
				if ms[i].name == "resources/res/002.txt" {
					ms[i].body = []byte("tampered")
				}
			}
			return ms
		}
		o := src.opts(dir)
		o.PreferDumps = true
		rep := run(o)
		Expect(rep.Problems).To(ContainElement(SatisfyAll(
			HaveField("Kind", destination.ProblemFixity), HaveField("URL", HaveSuffix("/res/002.txt")))))
		Expect(src.resourceGets()).To(Equal(map[string]int{"/res/002.txt": 1}))
		src.expectMirror(dir)
	})

	DescribeTable("refuses package members that could escape DIR, and fetches those resources instead",
		func(tamper func(s *testSource, ms []zipMember) []zipMember, problem string) {
			outside := filepath.Join(filepath.Dir(dir), "escaped-"+filepath.Base(dir))
			src := newTestSource(4)
			src.dump = true
			src.pkgOverride = func(k int, ms []zipMember) []zipMember { return tamper(src, ms) }
			o := src.opts(dir)
			o.PreferDumps = true
			rep := run(o)
			Expect(rep.Problems).To(ContainElement(SatisfyAll(
				HaveField("Kind", destination.ProblemPackage), HaveField("Message", ContainSubstring(problem)))))
			src.expectMirror(dir)
			Expect(outside).NotTo(BeAnExistingFile())
			Expect(filepath.Join(filepath.Dir(dir), "evil")).NotTo(BeAnExistingFile())
		},
		Entry("a manifest path with ..", func(s *testSource, ms []zipMember) []zipMember {
			ms[0].body = repath(ms[0].body, "/../evil")
			return append(ms, zipMember{name: "../evil", body: []byte("evil")})
		}, "a '..' segment"),
		Entry("an absolute member name", func(s *testSource, ms []zipMember) []zipMember {
			ms[0].body = repath(ms[0].body, "//evil")
			return append(ms, zipMember{name: "/evil", body: []byte("evil")})
		}, "an absolute path"),
		Entry("a symbolic link member", func(s *testSource, ms []zipMember) []zipMember {
			ms[0].body = repath(ms[0].body, "/link")
			return append(ms, zipMember{name: "link", body: []byte("../../../../etc/passwd"), symlink: true})
		}, "symbolic link"),
		Entry("a backslash in a path", func(s *testSource, ms []zipMember) []zipMember {
			ms[0].body = repath(ms[0].body, `/..\evil`)
			return append(ms, zipMember{name: `..\evil`, body: []byte("evil")})
		}, "backslash"),
	)

	It("refuses a package with a zip bomb member whole", func() {
		src := newTestSource(3)
		src.dump = true
		// Zeros compress about 1000 times; the ratio is judged over
		// PackageRatioFloor (1 MiB) only.
		bomb := make([]byte, rs.PackageRatioFloor+64<<10)
		src.pkgOverride = func(k int, ms []zipMember) []zipMember {
			ms[0].body = repath(ms[0].body, "/bomb")
			return append(ms, zipMember{name: "bomb", body: bomb})
		}
		o := src.opts(dir)
		o.PreferDumps = true
		o.PackageLimits.MaxRatio = 100
		rep := run(o)
		Expect(rep.Problems).To(ContainElement(HaveField("Message", ContainSubstring(`member "bomb" expands`))))
		Expect(rep.Packages).To(BeZero())
		src.expectMirror(dir)
	})

	It("refuses a package that declares more than the unpacked limit", func() {
		src := newTestSource(3)
		src.dump = true
		o := src.opts(dir)
		o.PreferDumps = true
		o.PackageLimits.MaxUncompressed = 100
		rep := run(o)
		Expect(rep.Problems).To(ContainElement(HaveField("Message", ContainSubstring("bytes uncompressed, more than the limit of 100 (--max-package-uncompressed)"))))
		// The resources are still fetched one by one.
		src.expectMirror(dir)
	})
})

var _ = Describe("Incremental synchronisation [12.1, 12.2]", Label("Section:12.1"), func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("applies creations, updates and deletions, fetching only what changed", func() {
		src := newTestSource(20)
		run(src.opts(dir))
		src.create("/res/new/a.txt", []byte("new a"))
		src.update("/res/004.txt", 2)
		src.remove("/res/007.txt")
		src.clearLog()
		rep := run(src.opts(dir))
		Expect(rep.Problems).To(BeEmpty())
		Expect(rep.Mode).To(Equal("auto"))
		Expect(rep.Sets[0].Baseline).To(BeEmpty())
		Expect(rep.Deleted).To(Equal(1))
		Expect(src.resourceGets()).To(Equal(map[string]int{"/res/new/a.txt": 1, "/res/004.txt": 1}))
		src.expectMirror(dir)
	})

	It("ends with the last state of a resource changed several times, fetched once", func() {
		src := newTestSource(5)
		run(src.opts(dir))
		src.update("/res/001.txt", 2)
		src.update("/res/001.txt", 3)
		src.remove("/res/002.txt")
		src.create("/res/002.txt", []byte("back again"))
		src.create("/res/gone.txt", []byte("short-lived"))
		src.remove("/res/gone.txt")
		src.clearLog()
		rep := run(src.opts(dir))
		Expect(rep.Problems).To(BeEmpty())
		Expect(src.resourceGets()).To(Equal(map[string]int{"/res/001.txt": 1, "/res/002.txt": 1}))
		src.expectMirror(dir)
	})

	It("resumes after the last change processed in the open Change List (datetime and position)", func() {
		src := newTestSource(5)
		run(src.opts(dir))
		src.update("/res/001.txt", 2)
		run(src.opts(dir))
		src.update("/res/002.txt", 2)
		src.clearLog()
		run(src.opts(dir))
		Expect(src.resourceGets()).To(Equal(map[string]int{"/res/002.txt": 1}))
		st := readState(dir)
		set := st.Sets[src.url("/capabilitylist.xml")]
		Expect(set.ChangeLists).To(HaveLen(1))
		Expect(set.ChangeLists[0].Position).To(Equal(2))
		Expect(set.ChangeLists[0].LastLoc).To(Equal(src.url("/res/002.txt")))
		Expect(set.ChangeLists[0].LastDatetime).NotTo(BeEmpty())
		src.expectMirror(dir)
	})

	It("follows closed Change Lists through the Change List Index without missing a change", func() {
		src := newTestSource(5)
		run(src.opts(dir))
		src.update("/res/001.txt", 2)
		run(src.opts(dir))
		src.update("/res/002.txt", 2)
		src.closeList()
		src.update("/res/003.txt", 2)
		src.closeList()
		src.remove("/res/004.txt")
		src.clearLog()
		rep := run(src.opts(dir))
		Expect(rep.Problems).To(BeEmpty())
		Expect(src.resourceGets()).To(Equal(map[string]int{"/res/002.txt": 1, "/res/003.txt": 1}))
		src.expectMirror(dir)
		// The closed lists are done: the next run reads only the open one.
		src.clearLog()
		src.create("/res/005.txt", []byte("five"))
		run(src.opts(dir))
		var docs []string
		for _, l := range src.requests() {
			if strings.HasPrefix(l.path, "/changelist") {
				docs = append(docs, l.path)
			}
		}
		Expect(docs).To(ConsistOf("/changelist.xml", "/changelist-open.xml"))
		src.expectMirror(dir)
	})

	It("resumes after an interrupted run without downloading again what it got", func() {
		src := newTestSource(3)
		run(src.opts(dir))
		for i := 0; i < 6; i++ {
			src.create(fmt.Sprintf("/res/n%d.txt", i), []byte(fmt.Sprintf("new %d", i)))
		}
		ctx, cancel := context.WithCancel(context.Background())
		block := make(chan struct{})
		var once sync.Once
		src.hook = func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path == "/res/n5.txt" {
				once.Do(cancel)
				<-block
				return true
			}
			return false
		}
		o := src.opts(dir)
		o.HTTP.Concurrency = 1
		_, err := destination.Run(ctx, o)
		close(block)
		Expect(err).To(MatchError(context.Canceled))
		src.hook = nil
		src.clearLog()
		run(src.opts(dir))
		Expect(src.resourceGets()).To(Equal(map[string]int{"/res/n5.txt": 1}))
		src.expectMirror(dir)
	})

	It("refuses to run when another run holds the directory", func() {
		src := newTestSource(2)
		started := make(chan struct{})
		release := make(chan struct{})
		var once sync.Once
		src.hook = func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path == "/res/001.txt" {
				once.Do(func() { close(started) })
				<-release
			}
			return false
		}
		done := make(chan error)
		go func() {
			_, err := destination.Run(context.Background(), src.opts(dir))
			done <- err
		}()
		Eventually(started).Should(BeClosed())
		// The lock is the directory's, whatever state file a run is given.
		o := src.opts(dir)
		o.StateFile = filepath.Join(GinkgoT().TempDir(), "elsewhere.json")
		_, err := destination.Run(context.Background(), o)
		Expect(err).To(MatchError(ContainSubstring("another run")))
		close(release)
		Expect(<-done).To(Succeed())
	})
})

var _ = Describe("Fixity [7]", Label("Section:7"), func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("reports a hash mismatch, requests the resource once more and does not keep it", func() {
		src := newTestSource(4)
		src.wrongHash["/res/002.txt"] = true
		rep := run(src.opts(dir))
		Expect(rep.OK()).To(BeFalse())
		Expect(rep.Rejected).To(Equal(1))
		Expect(rep.Problems).To(ConsistOf(SatisfyAll(HaveField("Kind", destination.ProblemFixity),
			HaveField("Message", ContainSubstring("md5")))))
		Expect(src.resourceGets()["/res/002.txt"]).To(Equal(2))
		Expect(filepath.Join(dir, "res/002.txt")).NotTo(BeAnExistingFile())
	})

	It("keeps a rejected download aside when asked", func() {
		src := newTestSource(2)
		src.wrongHash["/res/001.txt"] = true
		o := src.opts(dir)
		o.KeepRejected = true
		run(o)
		Expect(filepath.Join(dir, "res/001.txt")).NotTo(BeAnExistingFile())
		Expect(filepath.Join(dir, ".rsconform-rejected/res/001.txt")).To(BeARegularFile())
	})

	It("retries a truncated body", func() {
		src := newTestSource(2)
		var once sync.Once
		src.hook = func(w http.ResponseWriter, r *http.Request) bool {
			cut := false
			if r.URL.Path == "/res/001.txt" {
				once.Do(func() { cut = true })
			}
			if !cut {
				return false
			}
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(200)
			w.Write([]byte("short"))
			panic(http.ErrAbortHandler)
		}
		rep := run(src.opts(dir))
		Expect(rep.Problems).To(BeEmpty())
		src.expectMirror(dir)
	})
})

// Issue 12: sync reads documents through the validator's front end, so it
// refuses what 'rsconform validate' calls not well-formed, even where the
// pure-Go parser alone would accept it.
var _ = Describe("Documents that are not well-formed", func() {
	It("refuses a Resource List with a duplicate attribute and copies nothing", func() {
		dir := GinkgoT().TempDir()
		src := newTestSource(3)
		src.hook = func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path != "/resourcelist.xml" {
				return false
			}
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">`+
				`<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z" at="2013-01-03T09:00:00Z"/>`+
				`<url><loc>%s</loc></url></urlset>`, src.url("/res/001.txt"))
			return true
		}
		rep, err := destination.Run(context.Background(), src.opts(dir))
		if err == nil {
			Expect(rep.Problems).To(ContainElement(HaveField("Message", ContainSubstring("redefined"))))
		} else {
			Expect(err.Error()).To(ContainSubstring("redefined"))
		}
		Expect(src.resourceGets()).To(BeEmpty())
	})
})

// Issue 26: an element with more attributes than the front end reads is
// refused before libxml2 sees it (libxml2 takes quadratic time over them),
// as validate refuses it, and the document is fetched once.
var _ = Describe("An element with too many attributes", func() {
	It("is refused at once, with its position, the Resource List fetched once and nothing copied", func() {
		dir := GinkgoT().TempDir()
		src := newTestSource(3)
		var many strings.Builder
		for i := 0; i < 100_000; i++ {
			fmt.Fprintf(&many, " x:a%d='1'", i)
		}
		var mu sync.Mutex
		gets := 0
		src.hook = func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path != "/resourcelist.xml" {
				return false
			}
			mu.Lock()
			gets++
			mu.Unlock()
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns:x="urn:x">`+
				"\n<rs:md capability=\"resourcelist\" at=\"2013-01-03T09:00:00Z\"%s/>"+
				`<url><loc>%s</loc></url></urlset>`, many.String(), src.url("/res/001.txt"))
			return true
		}
		start := time.Now()
		rep, err := destination.Run(context.Background(), src.opts(dir))
		Expect(time.Since(start)).To(BeNumerically("<", 10*time.Second))
		want := ContainSubstring("line 2, column 1: the element <rs:md> has more than 256 attributes")
		if err == nil {
			Expect(rep.Problems).To(ContainElement(HaveField("Message", want)))
		} else {
			Expect(err.Error()).To(want)
		}
		Expect(src.resourceGets()).To(BeEmpty())
		Expect(gets).To(Equal(1))
	})
})

var _ = Describe("Politeness", Label("Section:politeness"), func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("honours Retry-After on 503 before asking again", func() {
		src := newTestSource(1)
		var mu sync.Mutex
		tries := 0
		src.hook = func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path != "/resourcelist.xml" {
				return false
			}
			mu.Lock()
			defer mu.Unlock()
			tries++
			if tries == 1 {
				w.Header().Set("Retry-After", "7")
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return true
			}
			return false
		}
		o := src.opts(dir)
		clock := sourcehttp.NewStepClock(time.Now())
		o.HTTP.Clock = clock
		rep := run(o)
		Expect(rep.Problems).To(BeEmpty())
		Expect(tries).To(Equal(2))
		// Waited on the injected clock: the test does not.
		Expect(clock.Waits()).To(ContainElement(7 * time.Second))
	})

	It("gives up when Retry-After asks for more than allowed", func() {
		src := newTestSource(1)
		src.hook = func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path == "/res/000.txt" {
				w.Header().Set("Retry-After", "3600")
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return true
			}
			return false
		}
		start := time.Now()
		rep := run(src.opts(dir))
		Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
		Expect(rep.Problems).To(ContainElement(HaveField("Message", ContainSubstring("Retry-After"))))
	})

	It("keeps to the request rate", func() {
		src := newTestSource(9)
		o := src.opts(dir)
		o.HTTP.Rate = 20
		start := time.Now()
		clock := sourcehttp.NewStepClock(start)
		o.HTTP.Clock = clock
		run(o)
		n := len(src.requests())
		Expect(n).To(BeNumerically(">", 5))
		Expect(clock.Now().Sub(start)).To(BeNumerically(">=", time.Duration(n-1)*50*time.Millisecond))
	})
})

var _ = Describe("Mirrored paths", Label("Section:paths"), func() {
	DescribeTable("Mapper.Path, the origin http://h/ in DIR",
		func(u, want, problem string) {
			m, err := destination.NewMapper("http://h/.well-known/resourcesync", nil, "index.html")
			Expect(err).NotTo(HaveOccurred())
			got, err := m.Path(u)
			if problem != "" {
				Expect(err).To(MatchError(ContainSubstring(problem)))
				return
			}
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
		},
		Entry("a plain path", "http://h/a/b.html", "a/b.html", ""),
		Entry("a trailing slash", "http://h/a/", "a/index.html", ""),
		Entry("the root", "http://h", "index.html", ""),
		Entry("the host without case, the default port", "HTTP://H:80/a", "a", ""),
		Entry("escapes kept as written", "http://h/a%20b/%C3%A9.txt", "a%20b/%C3%A9.txt", ""),
		Entry("an escaped unreserved character is not decoded", "http://h/res/%73hared.txt", "res/%73hared.txt", ""),
		Entry("the same name unescaped", "http://h/res/shared.txt", "res/shared.txt", ""),
		Entry("a query", "http://h/a?x=1/2", "a?x=1%2F2", ""),
		Entry("a query with an escape stays another file", "http://h/a?x=1%2F2", "a?x=1%252F2", ""),
		Entry("an encoded dot-dot is a name", "http://h/%2e%2e/x", "%2e%2e/x", ""),
		Entry("an encoded slash is a name", "http://h/a%2F..%2Fb", "a%2F..%2Fb", ""),
		Entry("another host", "http://localhost/a", "", "no mapping covers"),
		Entry("another port", "http://h:8080/a", "", "no mapping covers"),
		Entry("another scheme", "https://h/a", "", "no mapping covers"),
		Entry("double slashes", "http://h//a//b", "", "empty path segment"),
		Entry("dot-dot", "http://h/a/../../etc/passwd", "", "would leave"),
		Entry("the state file", "http://h/.rsconform-sync.json", "", "keeps for itself"),
		Entry("not http", "file:///etc/passwd", "", "not an http"),
	)

	DescribeTable("--map",
		func(maps []string, u, want, problem string) {
			var ms []sourcehttp.Map
			for _, s := range maps {
				m, err := sourcehttp.ParseMap(s)
				Expect(err).NotTo(HaveOccurred())
				ms = append(ms, m)
			}
			m, err := destination.NewMapper("http://h/", ms, "index.html")
			// "path: ..." is a problem of Path, the maps being accepted.
			pathProblem, ofPath := strings.CutPrefix(problem, "path: ")
			if problem != "" && !ofPath {
				Expect(err).To(MatchError(ContainSubstring(problem)))
				return
			}
			Expect(err).NotTo(HaveOccurred())
			got, err := m.Path(u)
			if ofPath {
				Expect(err).To(MatchError(ContainSubstring(pathProblem)))
				return
			}
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
		},
		Entry("two origins in two directories", []string{"http://h/=h", "http://localhost/=l"}, "http://localhost/a", "l/a", ""),
		Entry("the longest prefix", []string{"http://h/=.", "http://h/x/=x"}, "http://h/x/a", "x/a", ""),
		Entry("two origins in one directory", []string{"http://127.0.0.1/=.", "http://localhost/=."}, "", "", "could take the names"),
		Entry("a second origin inside the first's directory", []string{"http://h/=.", "http://h:8081/=origin2"}, "http://h:8081/origin2/a", "origin2/origin2/a", ""),
		Entry("the first origin's URL in the second's directory is refused", []string{"http://h/=.", "http://h:8081/=origin2"}, "http://h/origin2/a", "", "path: which --map http://h:8081/=origin2 keeps for its own URLs"),
		Entry("the first origin's URL at the second's directory is refused", []string{"http://h/=.", "http://h:8081/=origin2"}, "http://h/origin2", "", "path: keeps for its own URLs"),
		Entry("the first origin's URL beside the second's directory", []string{"http://h/=.", "http://h:8081/=origin2"}, "http://h/origin2x/a", "origin2x/a", ""),
		Entry("a directory inside the other, the inner prefix longer", []string{"http://h/=.", "http://h/b/=a"}, "http://h/a/x", "", "path: keeps for its own URLs"),
		Entry("one URL twice", []string{"http://h/=a", "http://H:80/=b"}, "", "", "mapped twice"),
		Entry("outside DIR", []string{"http://h/=../x"}, "", "", "not a directory inside DIR"),
		Entry("the Destination's own names", []string{"http://h/=.rsconform-x"}, "", "", "the Destination's own"),
	)

	It("keeps http://127.0.0.1:P/ and its alias http://localhost:P/ apart: the alias is refused, and dropping it deletes nothing", func() {
		dir := GinkgoT().TempDir()
		src := newTestSource(3)
		src.noChanges = true
		alias := strings.Replace(src.url("/res/001.txt"), "127.0.0.1", "localhost", 1)
		src.extraLocs = []string{alias}
		rep := run(src.opts(dir))
		Expect(rep.Problems).To(ConsistOf(SatisfyAll(HaveField("Kind", destination.ProblemPath), HaveField("URL", alias),
			HaveField("Message", ContainSubstring("no mapping covers")))))
		src.expectMirror(dir)
		src.extraLocs = nil
		src.listAt = src.tick()
		rep = run(src.opts(dir))
		Expect(rep.Problems).To(BeEmpty())
		Expect(rep.Deleted).To(Equal(0))
		src.expectMirror(dir)
	})

	It("keeps /res/%73hared.txt and /res/shared.txt in two files; dropping one keeps the other", func() {
		dir := GinkgoT().TempDir()
		src := newTestSource(0)
		src.noChanges = true
		src.res["/res/shared.txt"], src.lastmod["/res/shared.txt"] = []byte("plain"), t0
		src.res["/res/%73hared.txt"], src.lastmod["/res/%73hared.txt"] = []byte("escaped"), t0
		src.hook = func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.EscapedPath() == "/res/%73hared.txt" {
				w.Write([]byte("escaped"))
				return true
			}
			return false
		}
		rep := run(src.opts(dir))
		Expect(rep.Problems).To(BeEmpty())
		src.expectMirror(dir)
		Expect(filesIn(dir)).To(HaveLen(2))
		src.mu.Lock()
		delete(src.res, "/res/%73hared.txt")
		src.mu.Unlock()
		src.listAt = src.tick()
		rep = run(src.opts(dir))
		Expect(rep.Problems).To(BeEmpty())
		Expect(rep.Deleted).To(Equal(1))
		src.expectMirror(dir)
		Expect(filesIn(dir)).To(Equal(map[string][]byte{"res/shared.txt": []byte("plain")}))
	})

	It("refuses a second URL that maps to a file already the copy of another, before writing it", func() {
		dir := GinkgoT().TempDir()
		src := newTestSource(0)
		src.noChanges = true
		src.res["/d/"], src.lastmod["/d/"] = []byte("the directory"), t0
		src.res["/d/index.html"], src.lastmod["/d/index.html"] = []byte("the index"), t0
		rep := run(src.opts(dir))
		Expect(rep.Problems).To(ConsistOf(SatisfyAll(HaveField("Kind", destination.ProblemPath), HaveField("URL", src.url("/d/index.html")),
			HaveField("Message", ContainSubstring("which is the copy of "+src.url("/d/"))))))
		Expect(filesIn(dir)).To(Equal(map[string][]byte{"d/index.html": []byte("the directory")}))
	})

	It("refuses maps that could collide before writing anything", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "never")
		src := newTestSource(2)
		o := src.opts(dir)
		o.Maps = nil
		for _, m := range []string{src.url("/") + "=.", strings.Replace(src.url("/"), "127.0.0.1", "localhost", 1) + "=."} {
			mp, err := sourcehttp.ParseMap(m)
			Expect(err).NotTo(HaveOccurred())
			o.Maps = append(o.Maps, mp)
		}
		_, err := destination.Run(context.Background(), o)
		Expect(err).To(MatchError(ContainSubstring("could take the names")))
		Expect(dir).NotTo(BeADirectory())
		Expect(src.requests()).To(BeEmpty())
	})

	DescribeTable("refuses a state file it would not read whole, before reading it or mirroring anything, naming the file",
		func(make func(dir string) string, want string) {
			dir := GinkgoT().TempDir()
			name := make(dir)
			src := newTestSource(2)
			o := src.opts(dir)
			o.StateFile = name
			_, err := destination.Run(context.Background(), o)
			Expect(err).To(MatchError(And(ContainSubstring(name), ContainSubstring(want))))
			Expect(filepath.Join(dir, "res")).NotTo(BeADirectory())
		},
		Entry("over MaxStateBytes (a sparse file)", func(dir string) string {
			name := filepath.Join(dir, "big.json")
			Expect(os.WriteFile(name, []byte(`{"version": 1}`), 0o644)).To(Succeed())
			Expect(os.Truncate(name, destination.MaxStateBytes+1)).To(Succeed())
			return name
		}, "the state file is larger than 256 MiB"),
		Entry("a device", func(string) string { return os.DevNull }, "the state file is a character device, not a regular file"),
	)

	It("opens neither the lock nor the state file through a planted symbolic link", func() {
		for _, name := range []string{".rsconform-sync.lock", ".rsconform-sync.json"} {
			dir := GinkgoT().TempDir()
			outside := filepath.Join(GinkgoT().TempDir(), "victim")
			Expect(os.WriteFile(outside, []byte(`{"version": 1}`), 0o644)).To(Succeed())
			Expect(os.Symlink(outside, filepath.Join(dir, name))).To(Succeed())
			src := newTestSource(2)
			_, err := destination.Run(context.Background(), src.opts(dir))
			Expect(err).To(MatchError(ContainSubstring("a symbolic link, not followed")), name)
			Expect(os.ReadFile(outside)).To(Equal([]byte(`{"version": 1}`)), name)
			Expect(filepath.Join(dir, "res")).NotTo(BeADirectory(), name)
		}
		// A lock that does not exist yet is not created at a link's target.
		dir := GinkgoT().TempDir()
		target := filepath.Join(GinkgoT().TempDir(), "created")
		Expect(os.Symlink(target, filepath.Join(dir, ".rsconform-sync.lock"))).To(Succeed())
		_, err := destination.Run(context.Background(), newTestSource(1).opts(dir))
		Expect(err).To(HaveOccurred())
		Expect(target).NotTo(BeAnExistingFile())
	})

	It("never writes through a symbolic link planted in DIR", func() {
		dir := GinkgoT().TempDir()
		outside := GinkgoT().TempDir()
		Expect(os.Symlink(outside, filepath.Join(dir, "res"))).To(Succeed())
		src := newTestSource(2)
		rep := run(src.opts(dir))
		Expect(rep.Problems).To(HaveLen(2))
		entries, _ := os.ReadDir(outside)
		Expect(entries).To(BeEmpty())
	})
})

var _ = Describe("Audit [5.2]", Label("Section:5.2"), func() {
	It("finds missing, extra and changed files and changes nothing", func() {
		dir := GinkgoT().TempDir()
		src := newTestSource(6)
		run(src.opts(dir))
		src.update("/res/005.txt", 2) // known through the Change List
		Expect(os.Remove(filepath.Join(dir, "res/001.txt"))).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "res/002.txt"), []byte("edited locally"), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "res/extra.txt"), []byte("extra"), 0o644)).To(Succeed())
		o := src.opts(dir)
		o.Mode = destination.ModeAudit
		src.clearLog()
		rep := run(o)
		Expect(rep.OK()).To(BeFalse())
		a := rep.Audit
		Expect(a.InSync).To(BeFalse())
		Expect(a.Checked).To(Equal(6))
		Expect(a.Missing).To(ConsistOf(HaveField("Path", "res/001.txt")))
		Expect(a.Extra).To(ConsistOf(HaveField("Path", "res/extra.txt")))
		Expect(a.Changed).To(ConsistOf(HaveField("Path", "res/002.txt"), HaveField("Path", "res/005.txt")))
		Expect(src.resourceGets()).To(BeEmpty())
		Expect(filepath.Join(dir, "res/extra.txt")).To(BeARegularFile())
	})

	It("is not in sync when a resource of the Source cannot be kept, as sync fails on it", func() {
		dir := GinkgoT().TempDir()
		src := newTestSource(2)
		long := "/res/" + strings.Repeat("a", 300) + ".txt"
		src.create(long, []byte("z"))
		rep := run(src.opts(dir))
		Expect(rep.OK()).To(BeFalse())
		o := src.opts(dir)
		o.Mode = destination.ModeAudit
		rep = run(o)
		Expect(rep.OK()).To(BeFalse())
		Expect(rep.Audit.InSync).To(BeFalse())
		Expect(rep.Audit.Missing).To(ConsistOf(And(HaveField("URL", src.url(long)),
			HaveField("Reason", ContainSubstring("cannot be kept in the directory")))))
	})

	It("is in sync after a synchronisation", func() {
		dir := GinkgoT().TempDir()
		src := newTestSource(6)
		run(src.opts(dir))
		src.remove("/res/000.txt")
		src.create("/res/x/y.txt", []byte("y"))
		run(src.opts(dir))
		o := src.opts(dir)
		o.Mode = destination.ModeAudit
		rep := run(o)
		Expect(rep.Audit.InSync).To(BeTrue(), "%+v", rep.Audit)
		Expect(rep.OK()).To(BeTrue())
	})
})

var _ = Describe("Many Destinations at once", Label("Section:concurrency"), func() {
	It("gives each its correct copy", func() {
		src := newTestSource(40)
		src.dump, src.pkgSize = true, 15
		run(src.opts(GinkgoT().TempDir())) // warm up
		src.update("/res/010.txt", 2)
		src.remove("/res/011.txt")
		src.create("/res/c.txt", []byte("c"))
		var wg sync.WaitGroup
		dirs := make([]string, 8)
		for i := range dirs {
			dirs[i] = GinkgoT().TempDir()
			wg.Add(1)
			go func(i int) {
				defer GinkgoRecover()
				defer wg.Done()
				o := src.opts(dirs[i])
				o.PreferDumps = i%2 == 0
				rep, err := destination.Run(context.Background(), o)
				Expect(err).NotTo(HaveOccurred())
				Expect(rep.Problems).To(BeEmpty())
			}(i)
		}
		wg.Wait()
		for _, d := range dirs {
			src.expectMirror(d)
		}
	})
})

// repath points the manifest entry of /res/000.txt at another member.
func repath(manifest []byte, path string) []byte {
	GinkgoHelper()
	out := bytes.Replace(manifest, []byte(`path="/resources/res/000.txt"`), []byte(`path="`+path+`"`), 1)
	Expect(out).NotTo(Equal(manifest))
	return out
}

func readState(dir string) *destination.State {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join(dir, destination.StateFileName))
	Expect(err).NotTo(HaveOccurred())
	var st destination.State
	Expect(json.Unmarshal(b, &st)).To(Succeed())
	return &st
}
