package monitor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/rsconform/rsconform/sourcehttp"
)

// Alert is what an alert says of a run with new errors: the JSON an
// alert command reads on its standard input and a webhook receives.
//
//	{"source": "demo", "url": "https://example.org/.well-known/resourcesync",
//	 "run": 12, "started": "2026-01-01T00:00:00Z", "status": "ok",
//	 "new": [{"document": "https://example.org/dataset1/resourcelist.xml",
//	          "rule": "RS-REP-HASH", "message": "… URL … DIGEST …", "sampled": true,
//	          "severity": "error", "count": 1,
//	          "location": "https://example.org/dataset1/resourcelist.xml",
//	          "example": "… https://example.org/res/3.txt …"}],
//	 "fixed": [],
//	 "report": "http://127.0.0.1:8090/runs/12/report.html"}
//
// new holds the error findings new since the Source's last complete run,
// each by its fingerprint (document, rule, message; sampled ones without
// their URLs, as --baseline keys them) with the document and the message
// in full of its first finding (location, example);
// fixed the findings that run had and this one has not; unreachable, when
// present, says why the entry point failed (it worked in the last run);
// report is set when the monitor has a dashboard (--addr).
type Alert struct {
	Source      string    `json:"source"`
	URL         string    `json:"url"`
	Run         int64     `json:"run"`
	Started     time.Time `json:"started"`
	Status      string    `json:"status"`
	Unreachable string    `json:"unreachable,omitempty"`
	New         []Finding `json:"new"`
	Fixed       []Finding `json:"fixed"`
	Report      string    `json:"report,omitempty"`
}

// Alerter delivers alerts: to a command, a webhook, or both. Each alert
// goes once: a regression is alerted on the run that finds it, not on the
// runs that still have it.
type Alerter struct {
	// Command is run by sh -c with the alert on its standard input; it
	// has Timeout to end.
	Command string
	// Webhook receives the alert as a POST (application/json); a network
	// failure or a 5xx/429 answer is retried Retries times with a doubling
	// back-off from Backoff.
	Webhook string
	Retries int
	Backoff time.Duration
	Timeout time.Duration
	// Client makes the webhook's requests (default: a client with
	// Timeout).
	Client *http.Client
	// Clock waits between retries (default: the wall clock).
	Clock sourcehttp.Clock
	// Store records each delivery; Logf hears of failures.
	Store *Store
	Logf  func(format string, args ...any)
}

// Send delivers a to every channel and records each delivery.
func (al *Alerter) Send(ctx context.Context, a *Alert) {
	body, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		al.logf("alert for run %d: %v", a.Run, err)
		return
	}
	body = append(body, '\n')
	// A stop does not swallow the alert of a run that was recorded.
	ctx = context.WithoutCancel(ctx)
	if al.Command != "" {
		err := al.runCommand(ctx, body)
		al.record(ctx, a, "command", 1, err)
	}
	if al.Webhook != "" {
		n, err := al.post(ctx, body)
		al.record(ctx, a, "webhook", n, err)
	}
}

func (al *Alerter) record(ctx context.Context, a *Alert, channel string, attempts int, err error) {
	why := ""
	if err != nil {
		why = err.Error()
		al.logf("%s: the %s alert of run %d failed: %v", a.Source, channel, a.Run, err)
	}
	if al.Store != nil {
		if rerr := al.Store.RecordAlert(ctx, a.Run, channel, err == nil, attempts, why, al.clock().Now()); rerr != nil {
			al.logf("%s: recording the %s alert of run %d: %v", a.Source, channel, a.Run, rerr)
		}
	}
}

func (al *Alerter) logf(format string, args ...any) {
	if al.Logf != nil {
		al.Logf(format, args...)
	}
}

func (al *Alerter) clock() sourcehttp.Clock {
	if al.Clock == nil {
		return sourcehttp.RealClock{}
	}
	return al.Clock
}

func (al *Alerter) timeout() time.Duration {
	if al.Timeout <= 0 {
		return 30 * time.Second
	}
	return al.Timeout
}

func (al *Alerter) runCommand(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, al.timeout())
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", al.Command)
	cmd.Stdin = bytes.NewReader(body)
	var out limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(out.String()); msg != "" {
			return fmt.Errorf("%w: %s", err, msg)
		}
		return err
	}
	return nil
}

// post POSTs body to the webhook, with retries; it returns the attempts
// made.
func (al *Alerter) post(ctx context.Context, body []byte) (int, error) {
	client := al.Client
	if client == nil {
		client = &http.Client{Timeout: al.timeout()}
	}
	backoff := al.Backoff
	if backoff <= 0 {
		backoff = time.Second
	}
	retries := al.Retries
	if retries < 0 {
		retries = 0
	}
	var last error
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, al.Webhook, bytes.NewReader(body))
		if err != nil {
			return attempt, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "rsconform-monitor")
		resp, err := client.Do(req)
		retry := true
		if err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			switch {
			case resp.StatusCode < 300:
				return attempt, nil
			case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
				err = fmt.Errorf("the webhook answered %s", resp.Status)
			default:
				err, retry = fmt.Errorf("the webhook answered %s", resp.Status), false
			}
		}
		last = err
		if !retry || attempt > retries {
			return attempt, last
		}
		if err := al.clock().Sleep(ctx, backoff); err != nil {
			return attempt, errors.Join(last, err)
		}
		backoff *= 2
	}
}

// limitedBuffer keeps the first 4 KiB written to it: what a failing alert
// command said, for the log.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4<<10 - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
