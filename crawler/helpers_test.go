package crawler_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/crawler"
	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/rules/engine"
	"github.com/rsconform/rsconform/rules/frontend"
	"github.com/rsconform/rsconform/sourcehttp"
)

var (
	schemaOnce sync.Once
	schemaV    frontend.LibXML2
	schemaErr  error
)

// validator is the per-document pipeline the crawls use; the schemas are
// loaded once and shared.
func validator() *engine.Validator {
	schemaOnce.Do(func() { schemaV, schemaErr = frontend.New() })
	Expect(schemaErr).NotTo(HaveOccurred())
	return &engine.Validator{Schema: schemaV}
}

// testOptions are fast options for crawls of local servers.
func testOptions() crawler.Options {
	return crawler.Options{
		Validator: validator(),
		HTTP: sourcehttp.Config{Timeout: 2 * time.Second, Retries: sourcehttp.NoRetries,
			Backoff: 10 * time.Millisecond, UserAgent: "rsconform/test"},
	}
}

// loopbackNames is a transport that connects to 127.0.0.1 for the names
// given (another host of a test, served on the loopback address) and
// refuses any other name: no test resolves a name through the system
// resolver.
func loopbackNames(names ...string) http.RoundTripper {
	t := sourcehttp.NewTransport(2, 2*time.Second).(*http.Transport)
	d := &net.Dialer{Timeout: 2 * time.Second}
	t.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		if host != "127.0.0.1" && !slices.Contains(names, host) {
			return nil, fmt.Errorf("test transport: %s is neither 127.0.0.1 nor one of %v", host, names)
		}
		return d.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
	}
	return t
}

// serveSite serves a fixture site on 127.0.0.1.
func serveSite(s *fixtures.Site) *httptest.Server {
	return httptest.NewServer(s.Handler())
}

func crawlSite(s *fixtures.Site) (*crawler.Report, string) {
	srv := serveSite(s)
	defer srv.Close()
	opts := testOptions()
	opts.Packages = s.Packages
	opts.Sample, opts.SampleSet = s.Sample, true
	if s.Retries > 0 {
		opts.HTTP.Retries = s.Retries
	}
	if s.Spec != "" {
		v := *opts.Validator
		v.Config.Spec = engine.Spec(s.Spec)
		opts.Validator = &v
	}
	if s.Revisits {
		opts.Revisit = time.Hour
		opts.Pause = func(context.Context, time.Duration) error { s.Revisit(); return nil }
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := crawler.Crawl(ctx, srv.URL+s.Entry, opts)
	Expect(err).NotTo(HaveOccurred())
	return rep, srv.URL
}

// found lists the findings of a report as site wants (URL paths relative
// to base); graphOnly keeps those of cross-document rules.
func found(rep *crawler.Report, base string, graphOnly bool) []fixtures.SiteWant {
	var out []fixtures.SiteWant
	for _, res := range rep.Results {
		for _, d := range res.Diagnostics {
			if graphOnly {
				if r := engine.Lookup(d.Rule); r == nil || !r.IsGraph() {
					continue
				}
			}
			out = append(out, fixtures.SiteWant{Path: strings.TrimPrefix(d.Location.Name(), base), Line: d.Location.Line, Rule: d.Rule})
		}
	}
	return out
}

// judged is found without the infos: what a crawl holds against the
// Source (an info such as RS-REP-CHANGED says what it saw, not a fault).
func judged(rep *crawler.Report, base string) []fixtures.SiteWant {
	var out []fixtures.SiteWant
	for _, res := range rep.Results {
		for _, d := range res.Diagnostics {
			if d.Severity != engine.SeverityInfo {
				out = append(out, fixtures.SiteWant{Path: strings.TrimPrefix(d.Location.Name(), base), Line: d.Location.Line, Rule: d.Rule})
			}
		}
	}
	return out
}

// findingsOf are the findings of rule in a report.
func findingsOf(rep *crawler.Report, rule string) []engine.Diagnostic {
	var out []engine.Diagnostic
	for _, res := range rep.Results {
		for _, d := range res.Diagnostics {
			if d.Rule == rule {
				out = append(out, d)
			}
		}
	}
	return out
}

// count is the number of findings of rule in a report.
func count(rep *crawler.Report, rule string) int {
	n := 0
	for _, res := range rep.Results {
		for _, d := range res.Diagnostics {
			if d.Rule == rule {
				n++
			}
		}
	}
	return n
}

// compare matches wanted findings with found ones; see fixtures.Compare.
func compare(want, got []fixtures.SiteWant) (missing, unexpected []string) {
	count := map[fixtures.SiteWant]int{}
	for _, w := range want {
		count[w]++
	}
	for _, g := range got {
		if count[g] > 0 {
			count[g]--
			continue
		}
		unexpected = append(unexpected, g.String())
	}
	for _, w := range want {
		if count[w] > 0 {
			missing = append(missing, w.String())
			count[w]--
		}
	}
	sort.Strings(missing)
	sort.Strings(unexpected)
	return missing, unexpected
}

// describe prints a report for failure messages.
func describe(rep *crawler.Report, base string) string {
	var b strings.Builder
	if rep.EntryError != nil {
		fmt.Fprintf(&b, "entry error: %v\n", rep.EntryError)
	}
	for _, res := range rep.Results {
		fmt.Fprintf(&b, "%s [%s] %s", strings.TrimPrefix(res.Location, base), res.Kind, res.Status)
		if res.Error != "" {
			fmt.Fprintf(&b, " (%s)", res.Error)
		}
		b.WriteString("\n")
		for _, d := range res.Diagnostics {
			fmt.Fprintf(&b, "  %d:%d %s %s\n", d.Location.Line, d.Location.Column, d.Rule, strings.ReplaceAll(d.Message, base, ""))
		}
	}
	for id, err := range rep.GraphErrors {
		fmt.Fprintf(&b, "rule %s could not run: %v\n", id, err)
	}
	return b.String()
}

// handlerFunc shortens test servers.
type handlerFunc = http.HandlerFunc
