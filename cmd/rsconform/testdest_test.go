package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/rsconform/rsconform/mocksource/scenario"
)

var _ = Describe("test-destination's scenarios", func() {
	played := func(scenario string, flags ...string) []string {
		// false fails every run at once: the scenarios are played, not
		// passed, in well under a second.
		args := append([]string{"test-destination", "--scenario", scenario, "--format", "json"}, flags...)
		code, out, errs := cli(append(args, "--", "false")...)
		Expect(code).To(Equal(1), errs)
		var rep struct {
			Scenarios []struct{ Scenario string }
		}
		Expect(json.Unmarshal([]byte(out), &rep)).To(Succeed(), out)
		var names []string
		for _, s := range rep.Scenarios {
			names = append(names, s.Scenario)
		}
		return names
	}

	It("are, for all, every built-in one but the volume, token and second-origin scenarios, as in the destination suite", func() {
		Expect(scenario.BuiltinNames()).To(ContainElements(scenario.VolumeName, scenario.TokenName, scenario.Origin2Name))
		all := played("all")
		Expect(all).To(Equal(scenario.DefaultNames()))
		Expect(all).NotTo(ContainElements(scenario.VolumeName))
		Expect(all).NotTo(ContainElements(scenario.Origin2Name))
		Expect(scenario.DefaultNames()).To(HaveLen(len(scenario.BuiltinNames()) - 3))
	})

	It("include the volume scenario when it is named", func() {
		// --resources keeps the volume scenario's mock small: its 100,000
		// resources took 13 s to build under -race, in a test of which
		// scenarios are played.
		Expect(played("create-update-delete,"+scenario.VolumeName, "--resources", "1200")).To(Equal([]string{"create-update-delete", scenario.VolumeName}))
	})
})

var _ = Describe("test-destination interrupted", func() {
	It("reports what was played until then, the interrupted scenario's steps included, and exits 2", func() {
		dir := GinkgoT().TempDir()
		mark := filepath.Join(dir, "started")
		// The Destination returns at once, but for the third step (2) of the
		// second scenario, where it waits and the run is interrupted.
		script := `case "$RSCONFORM_DIR:$RSCONFORM_STEP" in */create-update-delete:2) : > "$1"; exec sleep 60;; esac`
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			defer GinkgoRecover()
			Eventually(func() error { _, err := os.Stat(mark); return err }).WithTimeout(30 * time.Second).Should(Succeed())
			cancel()
		}()
		var out, errb bytes.Buffer
		code := run(ctx, []string{"test-destination", "--scenario", "baseline-resourcelist,create-update-delete", "--dir", filepath.Join(dir, "d"),
			"--format", "json", "--", "sh", "-c", script, "sh", mark}, &out, &errb)
		Expect(code).To(Equal(2), errb.String())
		Expect(errb.String()).To(ContainSubstring("scenario create-update-delete: context canceled (the report has the steps played until then)"))
		var rep struct {
			Scenarios []struct {
				Scenario, Interrupted string
				Steps                 []struct{ Step int }
			}
		}
		Expect(json.Unmarshal(out.Bytes(), &rep)).To(Succeed(), out.String())
		Expect(rep.Scenarios).To(HaveLen(2))
		Expect(rep.Scenarios[0].Scenario).To(Equal("baseline-resourcelist"))
		Expect(rep.Scenarios[0].Interrupted).To(BeEmpty())
		Expect(rep.Scenarios[1].Scenario).To(Equal("create-update-delete"))
		Expect(rep.Scenarios[1].Interrupted).To(Equal("context canceled"))
		Expect(rep.Scenarios[1].Steps).To(HaveLen(2), "steps 0 and 1, judged before the interrupt")
	})
})
