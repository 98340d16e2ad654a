package destination_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/harness"
	"github.com/rsconform/rsconform/mocksource/scenario"
)

// shadowCopy is a broken Destination: rsconform sync keeps a shadow copy,
// which is then copied into DIR file by file, each name through the shell
// function name and each file through the command copy (default cp).
func shadowCopy(name, copy string) string {
	if copy == "" {
		copy = `cp "$f" "$to"`
	}
	return `"$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR.shadow" --rate 0 >/dev/null || exit 1
name() { ` + name + `; }
rm -rf "$RSCONFORM_DIR" && mkdir -p "$RSCONFORM_DIR" || exit 1
cd "$RSCONFORM_DIR.shadow" || exit 1
find . -path './.rsconform*' -prune -o -type f -print | while IFS= read -r f; do
  to="$RSCONFORM_DIR/$(name "${f#./}")"
  mkdir -p "$(dirname "$to")" && ` + copy + `
done`
}

// failing lists the failed verdicts of MUST level as "step N ID".
func failingMust(res *harness.Result) []string {
	var out []string
	for _, st := range res.Steps {
		for _, v := range st.Verdicts {
			if v.Status == harness.Fail && v.Level == harness.Must {
				out = append(out, fmt.Sprintf("step %d %s", st.Step, v.ID))
			}
		}
	}
	return out
}

// Each class of defect that a scenario exposes is caught at MUST level by
// the harness, and the verdict shows what it saw (issue 24); rsconform
// sync passes the same scenarios (harness_test.go plays them all).
var _ = Describe("Destinations with one defect each are caught", Label("Kind:harness"), Ordered, ContinueOnFailure, func() {
	ahead := &aheadPlays{Window: 3, Lookahead: 8}
	BeforeAll(ahead.setUp)

	truncated := ahead.addScript("large-bodies", shadowCopy(`printf '%s' "$1"`, `head -c 65536 "$f" > "$to"`))
	It("truncates bodies at 64 KiB: DEST-CURRENT gives both lengths, both hashes and the request", func() {
		res := ahead.get(truncated)
		Expect(failingMust(res)).To(ConsistOf("step 1 DEST-CURRENT", "step 2 DEST-CURRENT"))
		v := verdict(res, 1, harness.AllCurrent.ID)
		Expect(v.Actual).To(HavePrefix("3 stale: "))
		Expect(v.Actual).To(ContainSubstring("/res/large/sixteen-mebibytes.bin (65,536 bytes, the Source's 16,777,216 bytes)"))
		Expect(v.Evidence).To(ContainElement(MatchRegexp(`^/res/large/sixteen-mebibytes.bin: DIR holds 65,536 bytes, sha256 [0-9a-f]{64}; the Source serves 16,777,216 bytes, sha256 [0-9a-f]{64}; the log: GET /res/large/sixteen-mebibytes.bin 200, 16,777,216 bytes sent$`)))
	})

	decoded := ahead.addScript("resource-names", shadowCopy(`bash -c 'printf "%b" "${1//%/\\x}"' _ "$1"`, ""))
	It("percent-decodes names into collisions", func() {
		res := ahead.get(decoded)
		Expect(failingMust(res)).To(ContainElements("step 1 DEST-PRESENT", "step 1 DEST-EXTRA"))
		Expect(verdict(res, 1, harness.AllPresent.ID).Actual).To(Equal("3 missing: /res/names/100%25.txt, /res/names/a%20b.txt, /res/names/a%2Fb.txt"))
		Expect(verdict(res, 1, harness.AllPresent.ID).Evidence).To(ContainElement(MatchRegexp(`^/res/names/a%2Fb.txt: the log: GET /res/names/a%2Fb.txt 200, [0-9,]+ bytes sent$`)))
		Expect(verdict(res, 1, harness.NoExtraFiles.ID).Actual).To(Equal("2 extra: /res/names/100%.txt, /res/names/a b.txt"))
	})

	noQuery := ahead.addScript("resource-names", shadowCopy(`printf '%s' "${1%%\?*}"`, ""))
	It("drops the query string", func() {
		res := ahead.get(noQuery)
		Expect(failingMust(res)).To(ContainElements("step 1 DEST-PRESENT", "step 2 DEST-PRESENT"))
		Expect(verdict(res, 1, harness.AllPresent.ID).Actual).To(Equal("2 missing: /res/names/q.txt?page=1, /res/names/q.txt?page=2"))
	})

	folded := ahead.addScript("resource-names", shadowCopy(`printf '%s' "$1" | tr A-Z a-z`, ""))
	It("folds case", func() {
		res := ahead.get(folded)
		Expect(failingMust(res)).To(ContainElement("step 1 DEST-PRESENT"))
		// Folding case folds the escapes' hex digits too.
		Expect(verdict(res, 1, harness.AllPresent.ID).Actual).To(Equal("3 missing: /res/names/Case.txt, /res/names/a%2Fb.txt, /res/names/caf%C3%A9.txt"))
	})

	// The shadow copy of both origins, the second one in origin2/.
	const bothOrigins = `"$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR.shadow" --rate 0 --map "$RSCONFORM_ORIGIN=." --map "$RSCONFORM_ORIGIN2=origin2" >/dev/null || exit 1
rm -rf "$RSCONFORM_DIR" && mkdir -p "$RSCONFORM_DIR" && cd "$RSCONFORM_DIR.shadow" || exit 1
`

	mixed := ahead.addScript(scenario.Origin2Name, bothOrigins+`cp -R res "$RSCONFORM_DIR/" || exit 1
if [ -d origin2 ]; then cp -R origin2/. "$RSCONFORM_DIR/"; fi`)
	It("mixes two origins into one path: the second origin's /res/0000000.txt takes the first's file", func() {
		res := ahead.get(mixed)
		Expect(failingMust(res)).To(ConsistOf("step 1 DEST-PRESENT", "step 1 DEST-CURRENT", "step 1 DEST-EXTRA",
			"step 2 DEST-PRESENT", "step 2 DEST-CURRENT", "step 2 DEST-EXTRA"))
		Expect(verdict(res, 1, harness.AllPresent.ID).Actual).To(Equal("3 missing: /origin2/res/0000000.txt, /origin2/res/data/list.json, /origin2/res/only-here.html"))
		Expect(verdict(res, 1, harness.AllPresent.ID).Evidence).To(ContainElement(MatchRegexp(`^/origin2/res/0000000.txt: the log: GET \{origin2\}/res/0000000.txt 200, [0-9,]+ bytes sent$`)))
		Expect(verdict(res, 1, harness.AllCurrent.ID).Actual).To(MatchRegexp(`^1 stale: /res/0000000.txt \([0-9,]+ bytes, the Source's [0-9,]+ bytes, the content of /origin2/res/0000000.txt\)$`))
		Expect(verdict(res, 1, harness.NoExtraFiles.ID).Actual).To(Equal("2 extra: /res/data/list.json, /res/only-here.html"))
	})

	dropped := ahead.addScript(scenario.Origin2Name, bothOrigins+`cp -R res "$RSCONFORM_DIR/"`)
	It("drops the second origin", func() {
		res := ahead.get(dropped)
		Expect(failingMust(res)).To(ConsistOf("step 1 DEST-PRESENT", "step 2 DEST-PRESENT"))
		Expect(verdict(res, 2, harness.AllPresent.ID).Actual).To(Equal("3 missing: /origin2/res/0000000.txt, /origin2/res/data/list.json, /origin2/res/new.txt"))
	})

	dirRemoved := ahead.addScript("create-update-delete", `if [ "$RSCONFORM_STEP" = 1 ]; then rm -rf "$RSCONFORM_DIR"; exit 0; fi
exec "$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR" --rate 0`)
	It("removes its DIR after a failed run: judged, DEST-RUN fails and DIR is judged empty", func() {
		res := ahead.get(dirRemoved)
		v := verdict(res, 1, harness.RunCompletes.ID)
		Expect(v.Status).To(Equal(harness.Fail))
		Expect(v.Actual).To(ContainSubstring("DIR does not exist after the run: it is judged as empty"))
		Expect(res.Steps[1].Run.DirMissing).To(BeTrue())
		p := verdict(res, 1, harness.AllPresent.ID)
		Expect(p.Status).To(Equal(harness.Fail))
		Expect(p.Expected).To(HaveSuffix("present (DIR does not exist after the run)"))
		Expect(verdict(res, 2, harness.AllPresent.ID).Status).To(Equal(harness.Pass))
	})

	crashed := ahead.addScript("broken-documents", `if [ "$RSCONFORM_STEP" = 1 ]; then
  "$RSCONFORM_BIN" validate "${RSCONFORM_SOURCE%/.well-known/resourcesync}/dataset1/changelist.xml" >/dev/null 2>&1
  kill -SEGV $$
fi
exec "$RSCONFORM_BIN" sync "$RSCONFORM_SOURCE" "$RSCONFORM_DIR" --rate 0`)
	It("dies by a signal after fetching a broken document: a crash with its signal named, not a report", func() {
		res := ahead.get(crashed)
		Expect(res.Steps[1].Run.Signal).To(Equal("SIGSEGV"))
		v := verdict(res, 1, harness.RunCompletes.ID)
		Expect(v.Status).To(Equal(harness.Fail))
		Expect(v.Actual).To(HavePrefix("killed by SIGSEGV after "))
		Expect(v.Actual).NotTo(ContainSubstring("-1"))
		r := verdict(res, 1, harness.ProblemsReported.ID)
		Expect(r.Status).To(Equal(harness.Fail))
		Expect(r.Actual).To(Equal("killed by SIGSEGV and no line of standard error names /dataset1/changelist.xml"))
		Expect(verdict(res, 1, harness.AllPresent.ID).Actual).To(Equal("not judged: the run failed (killed by SIGSEGV)"))
	})
})
