// Command wilddest is a small ResourceSync Destination for the harness's
// tests, with the mistakes of clients seen in the wild behind flags, so
// that each scenario of "Mistakes seen in the wild" has a Destination that
// fails it. Without flags it is a plain, correct client: a baseline from
// the Resource List, then the Change List's entries since the last one
// applied, in document order.
//
//	wilddest [flags] SOURCE-DESCRIPTION-URL DIR
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	rs "github.com/rsconform/rsconform/resourcesync"
)

var (
	invertOffsets = flag.Bool("invert-offsets", false, "add a datetime's offset from UTC instead of subtracting it")
	wipeOnMissing = flag.Bool("wipe-on-missing", false, "take a Change List answering 404 for a Source that holds nothing")
	fetchDeleted  = flag.Bool("fetch-deleted", false, "ask for every deleted resource without a hash again, on every run")
	guessNames    = flag.Bool("guess-names", false, "go to /dataset1/resourcelist.xml and /dataset1/changelist.xml instead of following the Capability List")
	noGzip        = flag.Bool("no-gzip", false, "read documents as sent, never decompressing them")
	needLength    = flag.Bool("need-length", false, "read as many bytes as Content-Length says: none without one")
	token         = flag.String("token", "", "send Authorization: Bearer TOKEN")
)

type state struct {
	Since *time.Time `json:"since,omitempty"`
}

func main() {
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: wilddest [flags] SOURCE DIR")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1)); err != nil {
		fmt.Fprintln(os.Stderr, "wilddest:", err)
		os.Exit(1)
	}
}

func run(source, dir string) error {
	stFile := filepath.Join(dir, ".rsconform-wilddest.json")
	var st state
	if b, err := os.ReadFile(stFile); err == nil {
		if err := json.Unmarshal(b, &st); err != nil {
			return err
		}
	}
	rl, cl, err := discover(source)
	if err != nil {
		return err
	}
	var since time.Time
	if st.Since == nil {
		since, err = baseline(rl, dir)
	} else {
		since, err = incremental(cl, dir, *st.Since)
	}
	if err != nil {
		return err
	}
	st.Since = &since
	b, _ := json.Marshal(st)
	return os.WriteFile(stFile, b, 0o644)
}

// discover finds the Resource List and the Change List.
func discover(source string) (rl, cl string, err error) {
	if *guessNames {
		u, err := url.Parse(source)
		if err != nil {
			return "", "", err
		}
		root := u.Scheme + "://" + u.Host
		return root + "/dataset1/resourcelist.xml", root + "/dataset1/changelist.xml", nil
	}
	sd, err := document(source)
	if err != nil {
		return "", "", err
	}
	if len(sd.Entries) == 0 {
		return "", "", fmt.Errorf("%s lists no Capability List", source)
	}
	capl, err := document(sd.Entries[0].Loc)
	if err != nil {
		return "", "", err
	}
	for _, e := range capl.Entries {
		if e.Md == nil {
			continue
		}
		switch e.Md.Capability {
		case "resourcelist":
			rl = e.Loc
		case "changelist":
			cl = e.Loc
		}
	}
	if rl == "" || cl == "" {
		return "", "", errors.New("the Capability List has no Resource List or no Change List")
	}
	return rl, cl, nil
}

// entries reads a list and, for an index, the lists it names.
func entries(u string) ([]*rs.Entry, error) {
	d, err := document(u)
	if err != nil {
		return nil, err
	}
	if d.Root != rs.RootSitemapIndex {
		return d.Entries, nil
	}
	var out []*rs.Entry
	for _, e := range d.Entries {
		sub, err := document(e.Loc)
		if err != nil {
			return nil, err
		}
		out = append(out, sub.Entries...)
	}
	return out, nil
}

func baseline(rl, dir string) (time.Time, error) {
	es, err := entries(rl)
	if err != nil {
		return time.Time{}, err
	}
	var since time.Time
	for _, e := range es {
		if err := download(e.Loc, dir); err != nil {
			return since, err
		}
		if t, ok := when(e.Lastmod); ok && t.After(since) {
			since = t
		}
	}
	return since, nil
}

func incremental(cl, dir string, since time.Time) (time.Time, error) {
	es, err := entries(cl)
	var nf *notFound
	if errors.As(err, &nf) && *wipeOnMissing {
		// No Change List: the Source holds nothing (wrong).
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			if !strings.HasPrefix(f.Name(), ".rsconform") {
				os.RemoveAll(filepath.Join(dir, f.Name()))
			}
		}
		return since, nil
	}
	if err != nil {
		return since, err
	}
	last := since
	for _, e := range es {
		if e.Md == nil {
			continue
		}
		v := e.Md.Datetime
		if v == "" {
			v = e.Lastmod
		}
		t, ok := when(v)
		if e.Md.Change == "deleted" && e.Md.Hash == "" && *fetchDeleted {
			get(e.Loc) // to see whether it is really gone
		}
		if !ok || t.Before(since) {
			continue
		}
		if t.After(last) {
			last = t
		}
		if e.Md.Change == "deleted" {
			p, err := local(e.Loc, dir)
			if err != nil {
				return since, err
			}
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return since, err
			}
			continue
		}
		// A resource created and deleted since the last run is gone: a
		// later entry of the list says so.
		if err := download(e.Loc, dir); err != nil && !errors.As(err, &nf) {
			return since, err
		}
	}
	return last, nil
}

// when reads a datetime, adding its offset instead of subtracting it under
// -invert-offsets.
func when(v string) (time.Time, bool) {
	d, err := rs.ParseDatetime(v)
	if err != nil {
		return time.Time{}, false
	}
	t := d.Time
	if *invertOffsets {
		_, off := t.Zone()
		t = t.Add(2 * time.Duration(off) * time.Second)
	}
	return t.UTC(), true
}

type notFound struct{ url string }

func (e *notFound) Error() string { return e.url + ": 404 Not Found" }

func get(u string) ([]byte, http.Header, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	if *token != "" {
		req.Header.Set("Authorization", "Bearer "+*token)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	limit := int64(64 << 20)
	if *needLength {
		limit = max(resp.ContentLength, 0)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, nil, &notFound{u}
	case resp.StatusCode != http.StatusOK:
		return nil, nil, fmt.Errorf("%s: %s", u, resp.Status)
	}
	if resp.Header.Get("Content-Encoding") == "gzip" && !*noGzip {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", u, err)
		}
		if body, err = io.ReadAll(io.LimitReader(zr, 64<<20)); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", u, err)
		}
	}
	return body, resp.Header, nil
}

func document(u string) (*rs.Document, error) {
	body, _, err := get(u)
	if err != nil {
		return nil, err
	}
	if *noGzip && rs.IsGzip(body) {
		return nil, fmt.Errorf("%s: not XML", u)
	}
	d, err := rs.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	return d, nil
}

// local is where the resource at u is kept: its URI path under dir.
func local(u, dir string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	p := filepath.Clean("/" + pu.Path)
	return filepath.Join(dir, filepath.FromSlash(p)), nil
}

func download(u, dir string) error {
	body, _, err := get(u)
	if err != nil {
		return err
	}
	p, err := local(u, dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, body, 0o644)
}
