package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

var _ = Describe("rsconform suite, before any work", func() {
	DescribeTable("refuses a label filter that does not parse or selects nothing (exit 2, nothing crawled)",
		func(which, filter, want string) {
			args := []string{"suite", which, "--label-filter", filter}
			if which == "source" {
				args = append(args, "http://127.0.0.1:1/")
			} else {
				args = append(args, "--", "true")
			}
			code, _, errs := cli(args...)
			Expect(code).To(Equal(2))
			Expect(errs).To(ContainSubstring(want))
			Expect(errs).NotTo(ContainSubstring("crawling"))
			Expect(errs).NotTo(ContainSubstring("\x1b["))
		},
		Entry("a typo in a label", "source", "Levl:MUST", `selects no spec (Levl:MUST: did you mean Level:MUST?)`),
		Entry("a value no spec has", "source", "Section:99", "selects no spec"),
		Entry("a syntax error", "source", "Level:MUST &&", "does not parse: Syntax Error Parsing Label Filter"),
		Entry("an unknown scenario", "destination", "Scenario:nope", "selects no spec"),
	)

	It("refuses a --sample that is not a whole number, all or 0 (exit 2, nothing crawled)", func() {
		code, _, errs := cli("suite", "source", "--sample", "5x", "http://127.0.0.1:1/")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(`--sample "5x": want a number of resources per list, all or 0`))
		Expect(errs).NotTo(ContainSubstring("crawling"))
	})

	It("prints its help once, on stdout", func() {
		for _, args := range [][]string{{"suite", "source", "--help"}, {"suite", "--help"}, {"suite", "destination", "-h"}} {
			code, out, errs := cli(args...)
			Expect(code).To(Equal(0))
			Expect(strings.Count(out, "Usage:")).To(Equal(1), "%v", args)
			Expect(errs).To(BeEmpty())
		}
	})

	It("uses colour only on a terminal without NO_COLOR, and takes --color and --no-color", func() {
		on, err := suiteColor("auto", false)
		Expect(err).NotTo(HaveOccurred())
		Expect(on).To(BeFalse(), "standard output is not a terminal under go test")
		DeferCleanup(os.Setenv, "NO_COLOR", os.Getenv("NO_COLOR"))
		Expect(os.Setenv("NO_COLOR", "1")).To(Succeed())
		on, _ = suiteColor("auto", false)
		Expect(on).To(BeFalse())
		on, _ = suiteColor("always", false)
		Expect(on).To(BeTrue())
		on, _ = suiteColor("always", true)
		Expect(on).To(BeFalse(), "--no-color wins")
		_, err = suiteColor("sometimes", false)
		Expect(err).To(HaveOccurred())
	})
})

var _ = Describe("rsconform suite source, interrupted", func() {
	It("runs no spec on part of the Source: exit 2", func() {
		sc, err := scenario.Load("showcase")
		Expect(err).NotTo(HaveOccurred())
		ms, err := mocksource.New(mocksource.Options{Scenario: sc, IgnoreFaults: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(ms.PlayToEnd()).To(Succeed())
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		src := &cuttingSource{h: ms.Handler(), counts: map[string]int{}, limit: 5, cancel: cancel}
		srv := httptest.NewServer(src)
		defer srv.Close()
		var out, errb bytes.Buffer
		// No politeness and no retry: the default rate (10 a second) and
		// the 404 at "/" asked again after 500 ms were waits this spec
		// does not test.
		code := run(ctx, []string{"suite", "source", "--no-color", "--rate", "0", "--retries", "0", srv.URL + "/"}, &out, &errb)
		Expect(code).To(Equal(2), errb.String())
		Expect(errb.String()).To(ContainSubstring("interrupted while crawling; no spec is run"))
		Expect(out.String()).NotTo(ContainSubstring("Passed"))
	})
})

var _ = Describe("a suite's exit code", func() {
	It("is 2 when the suite was interrupted, whatever Ginkgo said, else 0 or 1", func() {
		var errb bytes.Buffer
		canceled, cancel := context.WithCancel(context.Background())
		cancel()
		Expect(suiteExit(canceled, false, "destination", &errb)).To(Equal(2))
		Expect(errb.String()).To(Equal("rsconform suite destination: interrupted; no verdict\n"))
		Expect(suiteExit(canceled, true, "source", &errb)).To(Equal(2))
		Expect(suiteExit(context.Background(), false, "source", &errb)).To(Equal(1))
		Expect(suiteExit(context.Background(), true, "source", &errb)).To(Equal(0))
	})
})
