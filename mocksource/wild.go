package mocksource

import (
	"go.yaml.in/yaml/v3"
)

// Wild is what a scenario may ask of the Source to reproduce what Sources
// seen in the wild do, each a field of the scenario's YAML. The
// Destination scenarios of "Mistakes seen in the wild" (docs/wild.md) use
// them.
type Wild struct {
	// TimeOffsets ("time-offsets": [+01:00, -05:00, +05:30]) makes the
	// Source write every datetime at these offsets from UTC (offsets.go).
	TimeOffsets []string
}

// offsetSeconds are the TimeOffsets in seconds east of UTC; a value that
// is not an offset (ParseScenario refuses them) is left out.
func (w *Wild) offsetSeconds() []int {
	var out []int
	for _, o := range w.TimeOffsets {
		if off, err := parseOffset(o); err == nil {
			out = append(out, off)
		}
	}
	return out
}

// wildFields are the scenario fields of Wild.
func (p *scParser) wildFields(sc *Scenario) map[string]func(*yaml.Node) error {
	return map[string]func(*yaml.Node) error{
		"time-offsets": func(v *yaml.Node) error {
			if err := p.strList(v, "time-offsets", &sc.TimeOffsets); err != nil {
				return err
			}
			for _, o := range sc.TimeOffsets {
				if _, err := parseOffset(o); err != nil {
					return p.errf(v, "time-offsets: %v", err)
				}
			}
			return nil
		},
	}
}

// mergeFields is a with b's fields added.
func mergeFields(a, b map[string]func(*yaml.Node) error) map[string]func(*yaml.Node) error {
	for k, f := range b {
		a[k] = f
	}
	return a
}
