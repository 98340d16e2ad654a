package sourcehttp

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Origin is a scheme, a host and a port (RFC 6454): what a request may
// reach. The port is always explicit (80 for http, 443 for https when the
// URL gives none) and the host lower case.
type Origin struct {
	Scheme, Host, Port string
}

// OriginOf returns the origin of an http(s) URL.
func OriginOf(u *url.URL) Origin {
	o := Origin{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Hostname()), Port: u.Port()}
	if o.Port == "" {
		o.Port = defaultPort(o.Scheme)
	}
	return o
}

func defaultPort(scheme string) string {
	switch scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// HostPort is the origin's host and port as --allow-host takes them.
func (o Origin) HostPort() string { return net.JoinHostPort(o.Host, o.Port) }

func (o Origin) String() string { return o.Scheme + "://" + o.HostPort() }

// Origins is the policy of which origins a Source's requests may reach,
// redirects included, and which of them receive the user's headers.
//
//   - The entry point's origin (scheme, host and port) is allowed, and so
//     is its upgrade to https on the default port (http://h/ to
//     https://h/). Another port of the entry host is another origin: a
//     Source that redirects or links there is refused (a same-host SSRF).
//   - --allow-host HOST allows HOST on the default ports, 80 and 443.
//   - --allow-host HOST:PORT allows HOST on that port (http or https).
//   - --allow-host '*' allows any origin.
//
// The user's headers (--header) go to the entry origin and the origins
// named with --allow-host HOST or HOST:PORT; '*' opens the crawl, never the
// headers.
type Origins struct {
	entry Origin
	any   bool
	hosts map[string]bool // HOST: default ports
	ports map[string]bool // host:port
	extra map[Origin]bool // origins added by the program (--map prefixes)
}

// NewOrigins returns the policy for an entry point and the --allow-host
// values. A malformed value is an error that names it.
func NewOrigins(entry *url.URL, allow []string) (*Origins, error) {
	o := &Origins{entry: OriginOf(entry), hosts: map[string]bool{}, ports: map[string]bool{}, extra: map[Origin]bool{}}
	for _, a := range allow {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case a == "":
			continue
		case a == "*":
			o.any = true
			continue
		case strings.Contains(a, "/"):
			return nil, fmt.Errorf("--allow-host %q: want HOST or HOST:PORT, not a URL", a)
		}
		if h, p, err := net.SplitHostPort(a); err == nil {
			if h == "" || p == "" || !isDigits(p) {
				return nil, fmt.Errorf("--allow-host %q: want HOST or HOST:PORT", a)
			}
			o.ports[net.JoinHostPort(h, p)] = true
			continue
		}
		o.hosts[strings.Trim(a, "[]")] = true
	}
	return o, nil
}

// AddOrigin allows one more origin (a --map prefix the program serves
// itself).
func (o *Origins) AddOrigin(g Origin) { o.extra[g] = true }

// Entry is the entry point's origin.
func (o *Origins) Entry() Origin { return o.entry }

func (o *Origins) isEntry(g Origin) bool {
	if g == o.entry {
		return true
	}
	// The https upgrade of an http entry point on the default port.
	return o.entry.Scheme == "http" && o.entry.Port == "80" &&
		g.Scheme == "https" && g.Port == "443" && g.Host == o.entry.Host
}

func (o *Origins) named(g Origin) bool {
	if o.ports[g.HostPort()] {
		return true
	}
	return o.hosts[g.Host] && g.Port == defaultPort(g.Scheme)
}

// Allowed reports whether a request may reach u.
func (o *Origins) Allowed(u *url.URL) bool {
	if o == nil {
		return true
	}
	g := OriginOf(u)
	if g.Scheme != "http" && g.Scheme != "https" {
		return false
	}
	return o.any || o.isEntry(g) || o.named(g) || o.extra[g]
}

// Trusted reports whether the user's headers may be sent to u.
func (o *Origins) Trusted(u *url.URL) bool {
	if o == nil {
		return false
	}
	g := OriginOf(u)
	return o.isEntry(g) || o.named(g)
}

// Check returns nil when u is allowed, else a *NotAllowedError.
func (o *Origins) Check(u *url.URL) error {
	if o.Allowed(u) {
		return nil
	}
	return &NotAllowedError{Origin: OriginOf(u), Entry: o.entry}
}

// NotAllowedError refuses a URL whose origin the policy does not allow.
type NotAllowedError struct {
	Origin, Entry Origin
}

// AllowHost is the --allow-host value that allows the refused origin.
func (e *NotAllowedError) AllowHost() string {
	if e.Origin.Port == defaultPort(e.Origin.Scheme) {
		return e.Origin.Host
	}
	return e.Origin.HostPort()
}

func (e *NotAllowedError) Error() string {
	flag := e.AllowHost()
	if e.Origin.Host == e.Entry.Host {
		return fmt.Sprintf("%s is another origin than the entry point's %s (another port or scheme of the same host); allow it with --allow-host %s",
			e.Origin, e.Entry, flag)
	}
	return fmt.Sprintf("%s is not the entry point's origin %s; allow it with --allow-host %s", e.Origin, e.Entry, flag)
}
