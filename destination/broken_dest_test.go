package destination_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/harness"
)

// notPassed lists the verdicts that neither passed nor were skipped, as
// "step N ID status".
func notPassed(res *harness.Result) []string {
	var out []string
	for _, st := range res.Steps {
		for _, v := range st.Verdicts {
			if v.Status == harness.Fail || v.Status == harness.NotObserved {
				out = append(out, fmt.Sprintf("step %d %s %s", st.Step, v.ID, v.Status))
			}
		}
	}
	return out
}

// Each kind of broken Destination gets exactly the verdicts it deserves:
// the failures and the verdicts not observed listed, nothing else, and the
// exit code by level (lenient: MUST failures only; strict: any failure).
// The plays run three at a time ahead of their specs (aheadPlays).
var _ = Describe("Broken Destinations get exactly the verdicts they deserve", Label("Kind:harness"), Ordered, ContinueOnFailure, func() {
	ahead := &aheadPlays{Window: 3, Lookahead: 8}
	BeforeAll(ahead.setUp)
	type kind struct {
		name         string
		scenario     string
		script       string
		want         []string
		failsLenient bool
		failsStrict  bool
		check        func(*harness.Result)
	}
	for _, k := range []kind{
		{name: "ignores deletions", scenario: "create-update-delete",
			// Synchronises a shadow copy, then copies it over DIR.
			script: `"$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR.shadow" --rate 0 >/dev/null
cp -R "$RSCONFORM_DIR.shadow/." "$RSCONFORM_DIR/"`,
			want: []string{"step 3 DEST-DELETED fail"}, failsLenient: true, failsStrict: true,
			check: func(res *harness.Result) {
				Expect(verdict(res, 3, harness.DeletedRemoved.ID).Line(3)).To(Equal(
					"step 3 [5.2] MUST deleted resources are removed: expected /res/life/report.html absent, actual present"))
				// Step 4 creates it again: the skip says so truly.
				Expect(verdict(res, 4, harness.DeletedRemoved.ID).Actual).To(Equal(
					"no resource is deleted at the Source now (those deleted earlier were created again)"))
				Expect(verdict(res, 2, harness.DeletedRemoved.ID).Actual).To(Equal("the Source has deleted nothing so far"))
			}},
		{name: "downloads everything again (passes without --strict, fails with)", scenario: "create-update-delete",
			script: `rm -rf "$RSCONFORM_DIR"/* "$RSCONFORM_DIR"/.rsconform*
exec "$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR" --rate 0 --baseline`,
			want:         []string{"step 1 DEST-NO-REFETCH fail", "step 2 DEST-NO-REFETCH fail", "step 3 DEST-NO-REFETCH fail", "step 4 DEST-NO-REFETCH fail"},
			failsLenient: false, failsStrict: true,
			check: func(res *harness.Result) {
				v := verdict(res, 1, harness.NoRefetch.ID)
				Expect(v.Level).To(Equal(harness.Policy))
				Expect(v.Evidence).To(ContainElement("/res/0000000.txt (held unchanged)"))
			}},
		{name: "crashes after step 0", scenario: "create-update-delete",
			script: `if [ "$RSCONFORM_STEP" != 0 ]; then echo 'Traceback (most recent call last): boom' >&2; exit 1; fi
exec "$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR" --rate 0`,
			want: []string{
				"step 1 DEST-RUN fail", "step 2 DEST-RUN fail", "step 3 DEST-RUN fail", "step 4 DEST-RUN fail",
				"step 1 DEST-NO-REFETCH not-observed", "step 2 DEST-NO-REFETCH not-observed",
				"step 3 DEST-NO-REFETCH not-observed", "step 4 DEST-NO-REFETCH not-observed",
				"step 3 DEST-NO-DELETED-FETCH not-observed"},
			failsLenient: true, failsStrict: true,
			check: func(res *harness.Result) {
				v := verdict(res, 1, harness.RunCompletes.ID)
				Expect(v.Actual).To(HavePrefix("exit 1 after "))
				Expect(v.Actual).To(HaveSuffix("nothing broken served: the content is not judged"))
				Expect(v.Evidence).To(ContainElement("output: Traceback (most recent call last): boom"))
				for _, id := range []string{harness.AllPresent.ID, harness.AllCurrent.ID, harness.NoExtraFiles.ID} {
					Expect(verdict(res, 1, id).Actual).To(Equal("not judged: the run failed (exit 1 with nothing broken served)"))
				}
			}},
		{name: "never retries after a 503", scenario: "flaky-server",
			script:       `exec "$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR" --rate 0 --retries 0`,
			want:         []string{"step 1 DEST-RETRY-AFTER not-observed"},
			failsLenient: false, failsStrict: false,
			check: func(res *harness.Result) {
				// The non-zero exit reports the 503: the run passes. Nothing
				// requires a retry (Retry-After is a SHOULD on when to ask
				// again, not that one must), so whether DIR is up to date is
				// not judged until the next run, which is.
				Expect(res.Steps[1].Run.ExitCode).NotTo(Equal(0))
				Expect(verdict(res, 1, harness.RunCompletes.ID).Evidence).To(ContainElement("GET /dataset1/changelist.xml 503 (status=503)"))
				Expect(verdict(res, 1, harness.AllCurrent.ID).Status).To(Equal(harness.Skip))
				Expect(verdict(res, 2, harness.AllCurrent.ID).Status).To(Equal(harness.Pass))
				Expect(verdict(res, 1, harness.RetryAfterHonoured.ID).Evidence).To(Equal([]string{
					"/dataset1/changelist.xml 503 with Retry-After 2, not asked again in the run"}))
			}},
		{name: "keeps content with a wrong hash, silently", scenario: "wrong-hash",
			script: `"$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR" --rate 0 --keep-rejected >/dev/null 2>&1
if [ -d "$RSCONFORM_DIR/.rsconform-rejected" ]; then
  cp -R "$RSCONFORM_DIR/.rsconform-rejected/." "$RSCONFORM_DIR/" && rm -rf "$RSCONFORM_DIR/.rsconform-rejected"
fi
exit 0`,
			want:         []string{"step 1 DEST-FIXITY fail", "step 1 DEST-REPORT fail"},
			failsLenient: true, failsStrict: true,
			check: func(res *harness.Result) {
				Expect(verdict(res, 1, harness.FixityChecked.ID).Evidence).To(ConsistOf(MatchRegexp(
					`^/res/0000003.txt: listed with sha256 [0-9a-f]{64}; served [0-9,]+ bytes, sha256 [0-9a-f]{64}; DIR holds the served content; the log: GET /res/0000003.txt 200, [0-9,]+ bytes sent(; GET /res/0000003.txt 200, [0-9,]+ bytes sent)*$`)))
				Expect(verdict(res, 1, harness.ProblemsReported.ID).Actual).To(Equal("exit 0 and no line of standard error names /res/0000003.txt"))
			}},
		{name: "reports nothing on a broken document", scenario: "broken-documents",
			script: `"$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR" --rate 0 >/dev/null 2>&1
exit 0`,
			want:         []string{"step 1 DEST-REPORT fail"},
			failsLenient: false, failsStrict: true,
			check: func(res *harness.Result) {
				Expect(verdict(res, 1, harness.ProblemsReported.ID).Evidence).To(Equal([]string{"GET /dataset1/changelist.xml 200 (malformed)"}))
			}},
	} {
		i := ahead.addScript(k.scenario, k.script)
		It("a Destination that "+k.name, func() {
			res := ahead.get(i)
			Expect(notPassed(res)).To(ConsistOf(k.want))
			Expect(res.Failed(false)).To(Equal(k.failsLenient))
			Expect(res.Failed(true)).To(Equal(k.failsStrict))
			if k.check != nil {
				k.check(res)
			}
		})
	}

	reportsOnStderr := ahead.addScript("broken-documents", `exec "$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR" --rate 0`)
	reportsByExit := ahead.addScript("broken-documents", `"$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR" --rate 0 >/dev/null 2>&1
[ "$RSCONFORM_STEP" = 1 ] && exit 1
exit 0`)
	It("passes a Destination that reports the broken document on standard error, and one that reports it by its exit status", func() {
		for _, i := range []int{reportsOnStderr, reportsByExit} {
			res := ahead.get(i)
			Expect(notPassed(res)).To(BeEmpty())
			Expect(verdict(res, 1, harness.ProblemsReported.ID).Status).To(Equal(harness.Pass))
			Expect(verdict(res, 1, harness.RunCompletes.ID).Status).To(Equal(harness.Pass))
		}
	})
})
