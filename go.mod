module github.com/rsconform/rsconform

go 1.26.8

tool github.com/onsi/ginkgo/v2/ginkgo

require (
	github.com/fatih/color v1.19.0
	github.com/lestrrat-go/libxml2 v0.0.0-20260709020957-3f0f7bd60b63
	github.com/mattn/go-colorable v0.1.14
	github.com/mattn/go-isatty v0.0.22
	github.com/onsi/ginkgo/v2 v2.34.0
	github.com/onsi/gomega v1.44.0
	github.com/schollz/progressbar/v3 v3.19.1
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/net v0.56.0
	golang.org/x/sync v0.21.0
	golang.org/x/time v0.16.0
)

require github.com/mattn/go-sqlite3 v1.14.53

require (
	github.com/Masterminds/semver/v3 v3.4.0 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/go-task/slim-sprig/v3 v3.0.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/pprof v0.0.0-20260402051712-545e8a4df936 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/mod v0.36.0 // indirect
	golang.org/x/sys v0.46.0
	golang.org/x/term v0.44.0
	golang.org/x/text v0.38.0 // indirect
	golang.org/x/tools v0.45.0 // indirect
)
