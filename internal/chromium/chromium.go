// Package chromium drives headless Chromium over the Chrome DevTools
// Protocol for the browser tests (label "browser") of the web validator
// and the monitor's dashboard: navigate, run JavaScript, wait for a page
// to load, collect console errors and take screenshots. (chromedp would
// do, but brings a large generated protocol package for five methods.)
// Only tests use it.
package chromium

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/websocket"
)

// Missing says why the browser test does not run: "" when it does; in
// CI (CI=true) a missing browser fails the run instead of skipping it,
// since CI is where the browser test must run.
func Missing(path string, getenv func(string) string) (why string, fail bool) {
	if path != "" {
		return "", false
	}
	why = "no Chromium: install Debian's chromium (RSCONFORM_BROWSER=1 .ci/setup does) or set RSCONFORM_CHROMIUM to run the browser test"
	if getenv("CI") == "true" {
		return why + " (CI=true: it must run)", true
	}
	return why, false
}

// Find returns the browser to test with: $RSCONFORM_CHROMIUM, or
// Debian's chromium on PATH; "" when there is none.
func Find() string {
	if p := os.Getenv("RSCONFORM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

type Browser struct {
	cmd     *exec.Cmd
	conn    *websocket.Conn
	nextID  int
	events  []cdpMessage
	Errors  []string // console errors and exceptions so far
	timeout time.Duration
}

type cdpMessage struct {
	ID     int             `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

var devtoolsRe = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// Start starts headless Chromium with a fresh profile in dir and
// attaches to its page.
func Start(ctx context.Context, path, dir string) (*Browser, error) {
	cmd := exec.CommandContext(ctx, path, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--disable-sync",
		"--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir="+dir,
		"--window-size=1280,900", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	b := &Browser{cmd: cmd, timeout: 30 * time.Second}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devtoolsRe.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	var wsURL string
	select {
	case wsURL = <-found:
	case <-time.After(30 * time.Second):
		b.Close()
		return nil, fmt.Errorf("chromium did not open its DevTools port within 30s")
	}
	u, err := url.Parse(wsURL)
	if err != nil {
		b.Close()
		return nil, err
	}
	page, err := pageTarget(u.Host)
	if err != nil {
		b.Close()
		return nil, err
	}
	b.conn, err = websocket.Dial(page, "", "http://localhost/")
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("attaching to the page: %w", err)
	}
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if _, err := b.call(m, nil); err != nil {
			b.Close()
			return nil, err
		}
	}
	return b, nil
}

// pageTarget is the DevTools WebSocket of the browser's first page.
func pageTarget(host string) (string, error) {
	resp, err := http.Get("http://" + host + "/json/list")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var targets []struct {
		Type string `json:"type"`
		WS   string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		return "", err
	}
	for _, t := range targets {
		if t.Type == "page" {
			return t.WS, nil
		}
	}
	return "", fmt.Errorf("chromium has no page target")
}

func (b *Browser) Close() {
	if b.conn != nil {
		b.conn.Close()
	}
	if b.cmd.Process != nil {
		syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		b.cmd.Wait()
	}
}

// read reads one message, noting console errors and exceptions.
func (b *Browser) read() (cdpMessage, error) {
	var m cdpMessage
	b.conn.SetReadDeadline(time.Now().Add(b.timeout))
	if err := websocket.JSON.Receive(b.conn, &m); err != nil {
		return m, fmt.Errorf("reading from chromium: %w", err)
	}
	if m.Method != "" {
		b.noteError(m)
		b.events = append(b.events, m)
	}
	return m, nil
}

func (b *Browser) noteError(m cdpMessage) {
	switch m.Method {
	case "Runtime.exceptionThrown":
		b.Errors = append(b.Errors, "exception: "+string(m.Params))
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Params, &p) == nil && (p.Type == "error" || p.Type == "assert") {
			b.Errors = append(b.Errors, "console: "+string(m.Params))
		}
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level string `json:"level"`
				Text  string `json:"text"`
				URL   string `json:"url"`
			} `json:"entry"`
		}
		// favicon.ico is the browser's own request, not the page's.
		if json.Unmarshal(m.Params, &p) == nil && p.Entry.Level == "error" && !strings.HasSuffix(p.Entry.URL, "/favicon.ico") {
			b.Errors = append(b.Errors, "log: "+p.Entry.Text+" "+p.Entry.URL)
		}
	}
}

// call sends a command and waits for its answer.
func (b *Browser) call(method string, params any) (json.RawMessage, error) {
	b.nextID++
	id := b.nextID
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if err := websocket.JSON.Send(b.conn, msg); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	for {
		m, err := b.read()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if m.ID != id {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	}
}

// waitEvent waits for an event named method received after mark (an index
// into the events).
func (b *Browser) waitEvent(method string, mark int) error {
	for i := mark; ; i++ {
		for i >= len(b.events) {
			if _, err := b.read(); err != nil {
				return fmt.Errorf("waiting for %s: %w", method, err)
			}
		}
		if b.events[i].Method == method {
			return nil
		}
	}
}

// Navigate loads a URL and waits for its load event.
func (b *Browser) Navigate(u string) error {
	mark := len(b.events)
	if _, err := b.call("Page.navigate", map[string]any{"url": u}); err != nil {
		return err
	}
	return b.waitEvent("Page.loadEventFired", mark)
}

// Eval runs JavaScript in the page and returns its value, JSON-decoded
// into out (nil: ignored).
func (b *Browser) Eval(expr string, out any) error {
	res, err := b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("evaluating %q: %s", expr, r.Exception.Text)
	}
	if out != nil {
		return json.Unmarshal(r.Result.Value, out)
	}
	return nil
}

// Submit runs JavaScript that submits a form and waits for the next page.
func (b *Browser) Submit(expr string) error {
	mark := len(b.events)
	if err := b.Eval(expr, nil); err != nil {
		return err
	}
	return b.waitEvent("Page.loadEventFired", mark)
}

// Screenshot saves the whole page as a PNG.
func (b *Browser) Screenshot(path string) error {
	var size struct {
		W float64 `json:"w"`
		H float64 `json:"h"`
	}
	if err := b.Eval(`({w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight})`, &size); err != nil {
		return err
	}
	res, err := b.call("Page.captureScreenshot", map[string]any{
		"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": size.W, "height": min(size.H, 4000), "scale": 1},
	})
	if err != nil {
		return err
	}
	var shot struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(res, &shot); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}

// DOM is the page's document as Chromium has built it (what
// 'chromium --dump-dom' prints): the markup after parsing and scripts.
func (b *Browser) DOM() (string, error) {
	var s string
	err := b.Eval(`new XMLSerializer().serializeToString(document)`, &s)
	return s, err
}
