package main

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Messages for mistakes", func() {
	It("suggest the command, flag or rule meant", func() {
		code, _, errs := cli("valdate", "x.xml")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(`unknown command "valdate" (did you mean validate?)`))

		code, _, errs = cli("validate", "--strcit", "x.xml")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("did you mean --strict?"))

		code, _, errs = cli("validate", "--rules", "RS-CL-ORDR", "x.xml")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("(did you mean RS-CL-ORDER?)"))

		code, _, errs = cli("explain", "rs-cl-ordr")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("(did you mean RS-CL-ORDER?)"))

		code, _, errs = cli("validate", "--zzzzzz", "x.xml")
		Expect(code).To(Equal(2))
		Expect(errs).NotTo(ContainSubstring("did you mean"), "no far-fetched suggestion")
	})

	It("tell to put a Destination command with flags after --", func() {
		code, _, errs := cli("test-destination", "--scenario", "create-update-delete", "./harvester", "--out", "{dir}")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("put the command after --"))
	})

	It("say an HTML page is HTML", func() {
		p := write(GinkgoT().TempDir(), "index.html", []byte("<!DOCTYPE html>\n<html><body><p>hello<br></body></html>\n"))
		code, rep := jsonReport(p)
		Expect(code).To(Equal(1))
		Expect(rep.Documents[0].Findings[0].Message).To(HavePrefix("this is an HTML page"))
		Expect(filepath.Base(rep.Documents[0].Location)).To(Equal("index.html"))
	})
})
