package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// helpWidth is the widest line of any --help: a terminal of 100 columns
// shows it unwrapped.
const helpWidth = 100

// printFlags writes the flags of fset as flag.PrintDefaults does, each
// usage wrapped to helpWidth columns under its flag, and the default
// added only when the usage does not state its own ("(default ...)").
func printFlags(w io.Writer, fset *flag.FlagSet) {
	fset.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		head := "  -" + f.Name
		if name != "" {
			head += " " + name
		}
		if d := f.DefValue; !strings.Contains(usage, "(default") && d != "" && d != "0" && d != "false" && d != "[]" {
			if name == "string" {
				d = fmt.Sprintf("%q", d)
			}
			usage += " (default " + d + ")"
		}
		fmt.Fprintln(w, head)
		for _, line := range wrapText(usage, helpWidth-6) {
			fmt.Fprintln(w, "      "+line)
		}
	})
}

// wrapText breaks s into lines of at most width columns at spaces (a word
// longer than width stays whole on its own line); newlines in s are kept.
func wrapText(s string, width int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
				line += " " + word
			default:
				out = append(out, line)
				line = word
			}
		}
		out = append(out, line)
	}
	return out
}
