package main

import (
	"encoding/json"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/fixtures"
	"github.com/rsconform/rsconform/reporter"
)

var _ = Describe("rsconform crawl --mock", func() {
	It("crawls the embedded mock Source, every kind of document, with no finding", func() {
		code, out, errs := cli("crawl", "--mock", "--packages", "--format", "json")
		Expect(code).To(Equal(0), errs)
		var rep reporter.JSONReport
		Expect(json.Unmarshal([]byte(out), &rep)).To(Succeed())
		kinds := map[string]int{}
		for _, d := range rep.Documents {
			kinds[d.Kind]++
			Expect(d.Findings).To(BeEmpty(), "%s: %v", d.Location, d.Findings)
		}
		for _, k := range []string{"description", "capabilitylist", "resourcelist-index", "resourcelist",
			"resourcedump", "package", "resourcedump-manifest", "changelist-index", "changelist",
			"changedump-index", "changedump", "changedump-manifest",
			"resourcelist-archive", "resourcedump-archive", "changelist-archive", "changedump-archive"} {
			Expect(kinds).To(HaveKey(k))
		}
		Expect(rep.Summary.Errors + rep.Summary.Warnings + rep.Summary.Infos).To(BeZero())
		Expect(errs).To(ContainSubstring("requests not rate-limited"), "the politeness rate (default 10/s) is for real Sources")
	})

	It("limits the mock's requests only at the --rate given", func() {
		code, _, errs := cli("crawl", "--mock", "--rate", "1000", "--max-documents", "1", "--sample", "0", "--format", "json")
		Expect(code).NotTo(Equal(2), errs)
		Expect(errs).To(ContainSubstring("requests at most 1000 requests/s (--rate)"))
		code, _, errs = cli("crawl", "--mock", "--rate", "0", "--max-documents", "1", "--sample", "0", "--format", "json")
		Expect(code).NotTo(Equal(2), errs)
		Expect(errs).To(ContainSubstring("requests not rate-limited"))
	})

	It("refuses a URL with --mock and an unknown scenario", func() {
		code, _, _ := cli("crawl", "--mock", "http://example.com/")
		Expect(code).To(Equal(2))
		code, _, errs := cli("crawl", "--mock", "--scenario", "no-such-scenario")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("no-such-scenario"))
	})

	It("lists the mock's scenarios", func() {
		code, out, _ := cli("mock", "--list")
		Expect(code).To(Equal(0))
		Expect(out).To(ContainSubstring("showcase"))
		Expect(out).To(ContainSubstring("incremental-changelist"))
	})
})

var _ = Describe("rsconform crawl --packages, exit code", func() {
	// serve serves the conforming fixture site. The crawls below ask it
	// with --rate 0: at the default politeness rate (10 a second) its
	// requests took 2 s of waiting per spec.
	serve := func() string {
		site, err := fixtures.Template("good")
		Expect(err).NotTo(HaveOccurred())
		srv := httptest.NewServer(site.Handler())
		DeferCleanup(srv.Close)
		return srv.URL + "/"
	}

	It("is 0 for a conforming Source with its package checked", func() {
		code, _, errs := cli("crawl", "--packages", "--rate", "0", "--format", "json", serve())
		Expect(code).To(Equal(0), errs)
	})

	It("is 1 when a package cannot be checked, as for a document that is not well-formed", func() {
		// The good package has 5 members: over this limit it is refused
		// unchecked, as a ZIP bomb is, and nothing else is wrong.
		code, out, errs := cli("crawl", "--packages", "--max-package-entries", "2", "--rate", "0", "--format", "json", serve())
		Expect(code).To(Equal(1), errs)
		Expect(errs).To(ContainSubstring("1 package could not be checked"))
		var rep reporter.JSONReport
		Expect(json.Unmarshal([]byte(out), &rep)).To(Succeed())
		Expect(rep.Summary.Errors).To(BeZero(), "no finding: the exit code comes from the unchecked package")
		statuses := map[string]string{}
		for _, d := range rep.Documents {
			statuses[d.Kind] = d.Status
		}
		Expect(statuses).To(HaveKeyWithValue("package", "error"))
	})
})
