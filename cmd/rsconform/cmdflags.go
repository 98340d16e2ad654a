package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Every command has one shape: xConfigFromFlags(args, stderr) registers
// the command's flags in one place, parses them, applies the
// configuration file, checks how they combine and returns an xConfig
// holding every setting already built (engine.Config, crawler.Options,
// sourcehttp.Config...); runX(ctx, args, stdout, stderr) parses, wires the
// config to the packages that do the work, runs them and returns the exit
// code. A FromFlags function that must end the command returns, instead
// of a config, a helpText (--help: printed on standard output, exit 0) or
// a usage error (printed on standard error, exit 2); the flag package
// reports a flag it does not know on the stderr given (sync and
// test-destination: in their usage error instead), as it always has.

// helpText is a command's --help, returned by its FromFlags function in
// place of a config.
type helpText string

func (helpText) Error() string { return "help requested" }

// flagsExit ends a command whose FromFlags returned err: the help on
// stdout (exit 0), or the usage error on stderr (exit 2).
func flagsExit(err error, stdout, stderr io.Writer) int {
	var help helpText
	if errors.As(err, &help) {
		fmt.Fprint(stdout, string(help))
		return 0
	}
	fmt.Fprintln(stderr, err)
	return 2
}

// commandHelp is a command's help: its text, then its flags.
func commandHelp(text string, fset *flag.FlagSet) helpText {
	var b strings.Builder
	b.WriteString(text)
	printFlags(&b, fset)
	return helpText(b.String())
}

// parseCommandLine parses args with fset as parseFlags does, flags after
// arguments included, and returns the positional arguments. --help returns
// the help (text, then the flags); a bad flag returns badFlag(err), which
// the command words (the flag package has reported it on fset's output).
func parseCommandLine(fset *flag.FlagSet, args []string, text string, badFlag func(error) error) ([]string, error) {
	fset.Usage = func() {} // the help is printed once, on standard output
	rest, err := parseFlags(fset, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, commandHelp(text, fset)
	case err != nil:
		return nil, badFlag(err)
	}
	return rest, nil
}

// seeHelp is the badFlag of a command whose flag set reports a bad flag
// itself: the usage error is only a line, pointing to --help.
func seeHelp(line string) func(error) error {
	return func(error) error { return errors.New(line) }
}

// usageError words a usage error of command cmd: "rsconform cmd: err".
func usageError(cmd string, err error) error {
	return fmt.Errorf("rsconform %s: %w", cmd, err)
}
