package main

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("--help", func() {
	It("fits 100 columns in every command, and states each default once", func() {
		names := []string{""}
		for n := range commands {
			names = append(names, n)
		}
		sort.Strings(names)
		doubled := regexp.MustCompile(`\(default [^)]*\)\s*\(default `)
		for _, n := range names {
			args := []string{"--help"}
			if n != "" {
				args = []string{n, "--help"}
			}
			code, out, errs := cli(args...)
			Expect(code).To(Equal(0), "rsconform %s --help: %s", n, errs)
			Expect(out).NotTo(BeEmpty(), "rsconform %s --help prints on stdout", n)
			// A flag's usage may run over several lines: it ends at the
			// next flag.
			for _, flagHelp := range regexp.MustCompile(`(?m)^  -`).Split(out, -1) {
				Expect(doubled.MatchString(strings.ReplaceAll(flagHelp, "\n", " "))).To(BeFalse(),
					"rsconform %s --help states a default twice:\n%s", n, flagHelp)
			}
			for _, line := range strings.Split(out, "\n") {
				line = strings.ReplaceAll(line, "\t", "        ")
				Expect(utf8.RuneCountInString(line)).To(BeNumerically("<=", 100),
					"rsconform %s --help: a line of %d columns:\n%s", n, utf8.RuneCountInString(line), line)
			}
		}
	})
})
