package reporter

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rsconform/rsconform/internal/words"
	"github.com/rsconform/rsconform/rules/graph"
)

// SamplingReporter is a Reporter that can say what a crawl sampled: every
// format (text: a line after the summary; json: "sampling"; sarif: the
// run's properties; junit: a testsuite "sampling" of properties; html: a
// line of the summary). A crawl calls SetSampling before Flush.
type SamplingReporter interface {
	Reporter
	SetSampling(*graph.Sampling)
}

// JSONSampling is the "sampling" member of a crawl's JSON report: which
// listed resources were fetched to check the lists' claims about them.
type JSONSampling struct {
	Resources int               `json:"resources"`
	Skipped   map[string]int    `json:"skipped"`
	Lists     []JSONSampledList `json:"lists"`
}

// JSONSampledList is one list of JSONSampling.
type JSONSampledList struct {
	Location string         `json:"location"`
	Kind     string         `json:"kind"`
	Entries  int            `json:"entries"`
	Sampled  int            `json:"sampled"`
	Skipped  map[string]int `json:"skipped"`
}

func jsonSamplingOf(s *graph.Sampling) *JSONSampling {
	if s == nil {
		return nil
	}
	out := &JSONSampling{Resources: s.Resources, Skipped: nonZero(s.Skipped), Lists: []JSONSampledList{}}
	for _, l := range s.Lists {
		out.Lists = append(out.Lists, JSONSampledList{Location: l.Location, Kind: string(l.Kind),
			Entries: l.Entries, Sampled: l.Sampled, Skipped: nonZero(l.Skipped)})
	}
	return out
}

func nonZero(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v > 0 {
			out[k] = v
		}
	}
	return out
}

// skipWords says each reason for people.
var skipWords = map[string]string{
	graph.SkipClosed:   "in closed Change Lists",
	graph.SkipArchived: "in archived lists",
	graph.SkipEarlier:  "earlier changes superseded in the same Change List",
	graph.SkipDeleted:  "deletions",
	graph.SkipLimit:    "beyond --sample",
	graph.SkipBudget:   "beyond the crawl's budget",
	graph.SkipHost:     "on hosts not allowed",
	graph.SkipPage:     "read as the entry page or a document, not as resources",
	graph.SkipOther:    "not fetched otherwise",
}

// samplingText is the line the text format adds to a crawl's summary.
func samplingText(s *graph.Sampling) string {
	if s == nil {
		return ""
	}
	from := 0
	for _, l := range s.Lists {
		if l.Sampled > 0 {
			from++
		}
	}
	line := fmt.Sprintf("sampled %s from %s of %s", words.Count(s.Resources, "resource"), words.Count(from, "list"), words.Count(len(s.Lists), "list"))
	total, reasons := graph.SkipTotal(s.Skipped)
	if total > 0 {
		var parts []string
		for _, r := range reasons {
			w := skipWords[r]
			if w == "" {
				w = r
			}
			parts = append(parts, fmt.Sprintf("%d %s", s.Skipped[r], w))
		}
		line += fmt.Sprintf("; %s not sampled: %s", words.Count(total, "entry"), strings.Join(parts, ", "))
	}
	return line
}

// samplingProperties are the sampling counts as name/value pairs, for the
// formats whose properties are flat (JUnit): resources, lists, sampled
// lists, and entries not sampled by reason ("skipped.REASON").
func samplingProperties(s *graph.Sampling) []JUnitProperty {
	from := 0
	for _, l := range s.Lists {
		if l.Sampled > 0 {
			from++
		}
	}
	out := []JUnitProperty{
		{Name: "resources", Value: strconv.Itoa(s.Resources)},
		{Name: "lists", Value: strconv.Itoa(len(s.Lists))},
		{Name: "sampled-lists", Value: strconv.Itoa(from)},
	}
	_, reasons := graph.SkipTotal(s.Skipped)
	for _, r := range reasons {
		out = append(out, JUnitProperty{Name: "skipped." + r, Value: strconv.Itoa(s.Skipped[r])})
	}
	return out
}
