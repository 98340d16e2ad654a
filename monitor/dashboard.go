package monitor

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/rsconform/rsconform/internal/words"
	"github.com/rsconform/rsconform/reporter"
)

//go:embed pages/*.tmpl
var pages embed.FS

// trendRuns is how many runs the trend charts show.
const trendRuns = 30

// trendOf is the trend chart of runs (newest first): the errors of the
// complete runs among the newest n, oldest first.
func trendOf(runs []Run, n int) []int {
	runs = runs[:min(len(runs), n)]
	trend := []int{}
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].Status == StatusOK {
			trend = append(trend, runs[i].Errors)
		}
	}
	return trend
}

// Dashboard serves the history in store:
//
//	GET /                         the Sources: status, last run, counts, trend
//	GET /sources/NAME             the runs of one Source
//	GET /runs/ID/report.html      a run's report (also report.json)
//	GET /badge/NAME.svg           a badge: conforms, N errors, unreachable
//	GET /api/sources              the Sources with their last run (JSON)
//	GET /api/sources/NAME/runs    the runs of one Source, newest first (JSON; ?limit=N)
//
// Every link is relative, so it may be served under a path prefix.
func Dashboard(store *Store, version string) http.Handler {
	d := &dashboard{store: store, version: version,
		tmpl: template.Must(reporter.HTMLTemplates().ParseFS(pages, "pages/*.tmpl"))}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", d.sources)
	mux.HandleFunc("GET /sources/{name}", d.source)
	mux.HandleFunc("GET /runs/{id}/report.html", d.report)
	mux.HandleFunc("GET /runs/{id}/report.json", d.report)
	mux.HandleFunc("GET /badge/{file}", d.badge)
	mux.HandleFunc("GET /api/sources", d.apiSources)
	mux.HandleFunc("GET /api/sources/{name}/runs", d.apiRuns)
	return mux
}

type dashboard struct {
	store   *Store
	version string
	tmpl    *template.Template
}

func (d *dashboard) page(title string) reporter.HTMLPage {
	return reporter.NewHTMLPage(title, "", "rsconform "+d.version, "'none'")
}

func (d *dashboard) render(w http.ResponseWriter, name string, data any) {
	var b bytes.Buffer
	if err := d.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, "rendering the page failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", reporter.HTMLPolicy("'none'"))
	w.Write(b.Bytes())
}

func (d *dashboard) fail(w http.ResponseWriter, err error) {
	if errors.Is(err, ErrNotFound) {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	http.Error(w, err.Error(), http.StatusInternalServerError)
}

// sourceRow is a Source as the list shows it.
type sourceRow struct {
	SourceSummary
	Status, Class string
	Trend         template.HTML
}

// verdict is a Source's state in words, and its class (pass, fail, skip).
func verdict(last *Run) (string, string) {
	switch {
	case last == nil:
		return "no run yet", "skip"
	case last.Status == StatusOK && last.Errors == 0:
		return "conforms", "pass"
	case last.Status == StatusOK:
		return words.Count(last.Errors, "error"), "fail"
	}
	return last.Status, "skip"
}

func (d *dashboard) sources(w http.ResponseWriter, r *http.Request) {
	list, err := d.store.Sources(r.Context(), trendRuns)
	if err != nil {
		d.fail(w, err)
		return
	}
	rows := make([]sourceRow, len(list))
	for i, s := range list {
		st, class := verdict(s.Last)
		rows[i] = sourceRow{SourceSummary: s, Status: st, Class: class, Trend: trendSVG(s.Trend)}
	}
	d.render(w, "sources", struct {
		reporter.HTMLPage
		Sources []sourceRow
	}{d.page("rsconform monitor"), rows})
}

func (d *dashboard) source(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	sourceURL, err := d.store.SourceURL(r.Context(), name)
	if err != nil {
		d.fail(w, err)
		return
	}
	runs, err := d.store.Runs(r.Context(), name, 200)
	if err != nil {
		d.fail(w, err)
		return
	}
	trend := trendOf(runs, trendRuns)
	var changes *Regression
	for _, run := range runs {
		if run.Status == StatusOK {
			c, err := d.store.Changes(r.Context(), run.ID)
			if err != nil {
				d.fail(w, err)
				return
			}
			changes = &c
			break
		}
	}
	d.render(w, "source", struct {
		reporter.HTMLPage
		Name, URL string
		Runs      []Run
		Trend     template.HTML
		Badge     template.HTML
		Changes   *Regression
	}{d.page("rsconform monitor: " + name), name, sourceURL, runs, trendSVG(trend),
		template.HTML(badgeOf(runs)), changes})
}

func (d *dashboard) report(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		d.fail(w, ErrNotFound)
		return
	}
	format := "json"
	if strings.HasSuffix(r.URL.Path, ".html") {
		format = "html"
	}
	b, err := d.store.Report(r.Context(), id, format)
	if err != nil {
		d.fail(w, err)
		return
	}
	if format == "html" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", reporter.HTMLPolicy("'none'"))
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.Write(b)
}

func (d *dashboard) badge(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutSuffix(r.PathValue("file"), ".svg")
	if !ok {
		d.fail(w, ErrNotFound)
		return
	}
	if _, err := d.store.SourceURL(r.Context(), name); err != nil {
		d.fail(w, err)
		return
	}
	runs, err := d.store.Runs(r.Context(), name, 20)
	if err != nil {
		d.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write([]byte(badgeOf(runs)))
}

// badgeOf is the badge of a Source whose runs, newest first, are runs:
// the last finished run decides, since one in progress or interrupted
// says nothing of the Source.
func badgeOf(runs []Run) string {
	var last *Run
	for i := range runs {
		if runs[i].Status == StatusOK || runs[i].Status == StatusUnreachable {
			last = &runs[i]
			break
		}
	}
	text, class := verdict(last)
	color := map[string]string{"pass": "#2da44e", "fail": "#cf222e", "skip": "#9a6700"}[class]
	return badgeSVG("ResourceSync", text, color)
}

func (d *dashboard) apiSources(w http.ResponseWriter, r *http.Request) {
	list, err := d.store.Sources(r.Context(), trendRuns)
	if err != nil {
		d.fail(w, err)
		return
	}
	if list == nil {
		list = []SourceSummary{}
	}
	writeJSON(w, map[string]any{"sources": list})
}

func (d *dashboard) apiRuns(w http.ResponseWriter, r *http.Request) {
	limit := 100
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 || n > 10000 {
			http.Error(w, "limit: want 1 to 10000", http.StatusBadRequest)
			return
		}
		limit = n
	}
	if _, err := d.store.SourceURL(r.Context(), r.PathValue("name")); err != nil {
		d.fail(w, err) // 404 for a Source the store does not know
		return
	}
	runs, err := d.store.Runs(r.Context(), r.PathValue("name"), limit)
	if err != nil {
		d.fail(w, err)
		return
	}
	type apiRun struct {
		Run
		Seconds float64 `json:"duration_seconds"`
		Report  string  `json:"report,omitempty"`
	}
	out := make([]apiRun, len(runs))
	for i, run := range runs {
		out[i] = apiRun{Run: run, Seconds: run.Duration.Seconds()}
		if run.HasReport {
			out[i].Report = fmt.Sprintf("../../../runs/%d/report.json", run.ID)
		}
	}
	writeJSON(w, map[string]any{"source": r.PathValue("name"), "runs": out})
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(b, '\n'))
}

// trendSVG draws errors over runs (oldest first) as a small line chart.
func trendSVG(errs []int) template.HTML {
	const width, height = 120, 24
	if len(errs) == 0 {
		return ""
	}
	top := 1
	for _, e := range errs {
		top = max(top, e)
	}
	var pts strings.Builder
	step := 0.0
	if len(errs) > 1 {
		step = float64(width-4) / float64(len(errs)-1)
	}
	for i, e := range errs {
		x := 2 + step*float64(i)
		y := float64(height-2) - float64(e)/float64(top)*float64(height-4)
		fmt.Fprintf(&pts, "%.1f,%.1f ", x, y)
	}
	last := errs[len(errs)-1]
	color := "#2da44e"
	if last > 0 {
		color = "#cf222e"
	}
	return template.HTML(fmt.Sprintf(`<svg class="trend" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="errors over the last %d runs: %s"><polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/></svg>`,
		width, height, width, height, len(errs), template.HTMLEscapeString(joinInts(errs)), color, strings.TrimSpace(pts.String())))
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// badgeSVG is a shields-style badge: label on grey, value on color.
func badgeSVG(label, value, color string) string {
	lw, vw := 6*len(label)+10, 6*len(value)+10
	esc := template.HTMLEscapeString
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s: %s">
<title>%s: %s</title>
<rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="%d" y="14">%s</text><text x="%d" y="14">%s</text>
</g>
</svg>
`, lw+vw, esc(label), esc(value), esc(label), esc(value), lw, lw, vw, color, lw/2, esc(label), lw+vw/2, esc(value))
}
