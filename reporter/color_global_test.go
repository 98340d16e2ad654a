package reporter_test

import "github.com/fatih/color"

func colorGlobalNoColor() bool { return color.NoColor }
