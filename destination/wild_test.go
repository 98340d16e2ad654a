package destination_test

import (
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/internal/testbin"
)

// The Destination scenarios of "Mistakes seen in the wild" (docs/wild.md):
// each fails a small Destination with the mistake (testdata/wilddest, the
// mistake behind a flag) and passes the same Destination without it; that
// rsconform sync passes them is the test of every default scenario.

var (
	wildOnce sync.Once
	wildBin  string
	wildErr  error
)

// wildDest is the command line of testdata/wilddest with flags, built
// once beside the suite's rsconform.
func wildDest(flags ...string) []string {
	GinkgoHelper()
	wildOnce.Do(func() {
		wildBin, wildErr = testbin.Build("destination", "./testdata/wilddest")
	})
	Expect(wildErr).NotTo(HaveOccurred())
	return append(append([]string{wildBin}, flags...), "{source}", "{dir}")
}

// failing lists the verdicts that fail the run (MUST), as lines.
func failing(res *harness.Result) []string {
	var out []string
	for _, st := range res.Steps {
		for _, v := range st.Verdicts {
			if v.Fails(false) {
				out = append(out, v.Line(st.Step))
			}
		}
	}
	return out
}

var _ = Describe("Scenarios of mistakes seen in the wild", Label("Kind:harness"), func() {
	It("time-zone-offsets: passes a client that reads offsets right, fails one that adds them", func() {
		res := playScenario("time-zone-offsets", time.Minute, wildDest()...)
		Expect(failing(res)).To(BeEmpty())
		res = playScenario("time-zone-offsets", time.Minute, wildDest("-invert-offsets")...)
		Expect(failing(res)).To(ContainElement(
			"step 2 [5.2] MUST every copy has the Source's current content: expected every copy with the Source's content (length and sha256), actual 1 stale: /res/tz/a.txt (284 bytes, the Source's 237 bytes)"))
		Expect(res.Failed(false)).To(BeTrue())
	})
})

var _ = Describe("Scenarios of mistakes seen in the wild, continued", Label("Kind:harness"), func() {
	It("changelist-404-once: passes a client that reports the 404 and catches up, fails one that deletes its copy", func() {
		res := playScenario("changelist-404-once", time.Minute, wildDest()...)
		Expect(failing(res)).To(BeEmpty())
		Expect(res.Steps[1].Run.ExitCode).To(Equal(1))
		Expect(verdict(res, 2, harness.AllCurrent.ID).Status).To(Equal(harness.Pass))
		res = playScenario("changelist-404-once", time.Minute, wildDest("-wipe-on-missing")...)
		Expect(failing(res)).To(ContainElement(HavePrefix("step 1 [5.2] MUST every resource of the Source is present: expected 13 resources present, actual 13 missing")))
	})

	It("deletions-without-hashes: a client that asks for deleted resources again fails DEST-NO-DELETED-FETCH, a POLICY", func() {
		res := playScenario("deletions-without-hashes", time.Minute, wildDest()...)
		Expect(failing(res)).To(BeEmpty())
		for step := 1; step <= 3; step++ {
			Expect(verdict(res, step, harness.NoDeletedFetch.ID).Status).To(Equal(harness.Pass))
		}
		res = playScenario("deletions-without-hashes", time.Minute, wildDest("-fetch-deleted")...)
		Expect(res.Failed(false)).To(BeFalse())
		Expect(res.Failed(true)).To(BeTrue())
		for step := 1; step <= 3; step++ {
			v := verdict(res, step, harness.NoDeletedFetch.ID)
			Expect(v.Status).To(Equal(harness.Fail))
			Expect(v.Actual).To(HavePrefix("3: GET /res/"))
		}
	})
})

var _ = Describe("Scenarios of Sources seen in the wild, on the wire", Label("Kind:harness"), func() {
	It("bearer-token: passes a client that sends {token}, fails one that sends none", func() {
		res := playScenario("bearer-token", time.Minute, append(syncCommand(), "--header", "Authorization: Bearer {token}")...)
		Expect(failures(res)).To(BeEmpty())
		Expect(verdict(res, 1, harness.TokenSent.ID).Status).To(Equal(harness.Pass))
		res = playScenario("bearer-token", time.Minute, wildDest("-token", "{token}")...)
		Expect(failures(res)).To(BeEmpty())
		res = playScenario("bearer-token", time.Minute, wildDest()...)
		v := verdict(res, 0, harness.TokenSent.ID)
		Expect(v.Status).To(Equal(harness.Fail))
		Expect(v.Actual).To(Equal("1 request of 1 without it (answered 401): GET /.well-known/resourcesync 401"))
		Expect(res.Failed(false)).To(BeTrue())
	})

	It("gzip-and-names: fails a client that guesses document names, and one that cannot read .xml.gz", func() {
		res := playScenario("gzip-and-names", time.Minute, wildDest()...)
		Expect(failing(res)).To(BeEmpty())
		res = playScenario("gzip-and-names", time.Minute, wildDest("-guess-names")...)
		Expect(failing(res)).To(ContainElement(HavePrefix("step 0 [5.2] MUST the Destination's run completes")))
		Expect(verdict(res, 0, harness.RunCompletes.ID).Evidence).To(ContainElement(ContainSubstring("/dataset1/resourcelist.xml: 404 Not Found")))
		// It asks for gzip (as HTTP libraries do) but never decodes: the
		// Source Description, sent with Content-Encoding gzip, is the
		// first thing it cannot read.
		res = playScenario("gzip-and-names", time.Minute, wildDest("-no-gzip")...)
		Expect(res.Failed(false)).To(BeTrue())
		Expect(verdict(res, 0, harness.RunCompletes.ID).Evidence).To(ContainElement(HaveSuffix("/.well-known/resourcesync: not XML")))
	})

	It("no-content-type-chunked: fails a client that reads as many bytes as Content-Length says", func() {
		res := playScenario("no-content-type-chunked", time.Minute, wildDest()...)
		Expect(failing(res)).To(BeEmpty())
		res = playScenario("no-content-type-chunked", time.Minute, wildDest("-need-length")...)
		Expect(res.Failed(false)).To(BeTrue())
	})
})
