// Package testgc is imported, for its side effect only, by the test
// suites whose garbage (documents built, parsed, served and reported for
// each spec) costs them most under -race: it collects at 400 % growth
// rather than 100 %, as every collection also clears the race detector's
// shadow of what it frees. Measured with GOGC=400 against the default on
// each package's race test binary: 10-20 % less CPU for crawler, webui,
// cmd/rsconform, rules/engine and resourcesync; nothing for reporter and
// schema, which do not import it. The suites of destination, mocksource,
// monitor and suite/destination, measured the same way on 2 loaded cores
// (two runs each): 0.5-3.5 s less user CPU (destination 16.7-17.5 s ->
// 13.4-13.7 s, mocksource 7.7 -> 6.9-7.0 s, monitor 5.2-5.5 -> 4.6-4.9 s,
// suite/destination 3.5-3.8 -> 3.1 s); suite/source imports it too. No
// test of those packages measures memory. GOGC, when set, still decides.
package testgc

import (
	"os"
	"runtime/debug"
)

// Percent is the garbage collector's target percentage in the test
// binaries that import the package.
const Percent = 400

func init() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(Percent)
	}
}
