package webui

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/rsconform/rsconform/sourcehttp"
)

// A public validator fetches whatever URL a visitor types. Without a guard
// it would fetch from the host's own network: its loopback services, the
// private networks behind it, a cloud's metadata service on a link-local
// address. The guard refuses such addresses when the connection is made,
// on the address the name resolved to, so neither a redirect nor a name
// that resolves differently the second time (DNS rebinding) gets round it.

// blockedPrefixes are the ranges of the IANA special-purpose address
// registries (IPv4 and IPv6, RFC 6890 and successors) that are not
// globally reachable, and the deprecated ranges that were never public,
// besides what netip's predicates cover (loopback, private, link-local,
// multicast, unspecified). A range the registries call globally reachable
// but that embeds an IPv4 address is in embedsIPv4 instead. A few global
// anycast addresses inside the blocked IETF ranges (192.0.0.9, 2001:1::1)
// are refused with them: no Source is served there.
var blockedPrefixes = []struct {
	p    netip.Prefix
	what string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), `"this network"`},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast, deprecated"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved, and limited broadcast"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible, deprecated"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use IPv4/IPv6 translation"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("100:0:0:1::/64"), "dummy prefix"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments: Teredo, benchmarking, ORCHID"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("5f00::/16"), "segment routing (SRv6) SIDs"},
	{netip.MustParsePrefix("fec0::/10"), "site-local, deprecated"},
}

// nat64 is the well-known prefix of IPv4/IPv6 translation (RFC 6052),
// globally reachable: an address in it stands for the IPv4 address in its
// last 32 bits, which a NAT64 gateway on the host's network connects to.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// refusal says why an address may not be reached; "" when it may.
func refusal(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return "not an IP address"
	case a.IsLoopback():
		return "a loopback address"
	case a.IsPrivate():
		return "a private address"
	case a.IsLinkLocalUnicast():
		return "a link-local address"
	case a.IsLinkLocalMulticast():
		return "a link-local multicast address"
	case a.IsUnspecified():
		return "an unspecified address"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	if nat64.Contains(a) {
		b := a.As16()
		v4 := netip.AddrFrom4([4]byte(b[12:]))
		if why := refusal(v4); why != "" {
			return fmt.Sprintf("an IPv4/IPv6 translation address (%s) standing for %s, %s", nat64, v4, why)
		}
		return ""
	}
	for _, b := range blockedPrefixes {
		if b.p.Contains(a) {
			return "a special-purpose address (" + b.p.String() + ", " + b.what + ")"
		}
	}
	return ""
}

// RefusedError is the error of a connection the guard refused.
type RefusedError struct {
	Host   string // as given (a name or an address)
	Addr   netip.Addr
	Reason string
}

func (e *RefusedError) Error() string {
	if _, err := netip.ParseAddr(e.Host); err == nil && e.Host != e.Addr.String() {
		// An address written another way ([::127.0.0.1], ::ffff:...).
		return fmt.Sprintf("refused: %s (%s) is %s (the web validator does not fetch from private networks)", e.Host, e.Addr, e.Reason)
	}
	if e.Host != "" && e.Host != e.Addr.String() {
		return fmt.Sprintf("refused: %s resolves to %s, %s (the web validator does not fetch from private networks)", e.Host, e.Addr, e.Reason)
	}
	return fmt.Sprintf("refused: %s is %s (the web validator does not fetch from private networks)", e.Addr, e.Reason)
}

// dialControl is a net.Dialer Control that refuses connections to
// addresses refusal names. It runs after name resolution, on the address
// being connected to.
func dialControl(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("refused: %q is not host:port", address)
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("refused: %q is not an IP address", host)
	}
	if why := refusal(a); why != "" {
		return &RefusedError{Addr: a.Unmap(), Reason: why}
	}
	return nil
}

// lookupFunc resolves a name to its addresses (net.Resolver.LookupNetIP).
type lookupFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

// NewTransport is the HTTP transport of the web validator's crawls. Unless
// allowPrivate, every connection is checked by the guard when it is made;
// proxies from the environment are not used (the guard would see the
// proxy's address, not the Source's). Names are resolved by the system
// resolver.
func NewTransport(allowPrivate bool, timeout time.Duration) *http.Transport {
	return newTransport(allowPrivate, timeout, nil)
}

// newTransport is NewTransport resolving names with lookup when it is not
// nil: the server's one injected resolver (Options.lookup) then answers
// both its early check and its connections, so tests resolve no name
// through the system. Without it the dialer resolves names itself (with
// its IPv4/IPv6 fallback).
func newTransport(allowPrivate bool, timeout time.Duration, lookup lookupFunc) *http.Transport {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = dialControl
	}
	// The crawls' own transport settings (no transparent gzip, idle
	// connections), with the guarded dialer.
	t, ok := sourcehttp.NewTransport(2, timeout).(*http.Transport)
	if !ok {
		t = http.DefaultTransport.(*http.Transport).Clone()
	}
	t.Proxy = nil
	t.DialContext = d.DialContext
	if lookup != nil {
		t.DialContext = dialResolved(d, lookup)
	}
	return t
}

// dialResolved dials address, a name resolved with lookup first, trying
// its addresses in turn. The guard (d.Control) sees each address dialled.
func dialResolved(d *net.Dialer, lookup lookupFunc) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, fmt.Errorf("refused: %q is not host:port", address)
		}
		if _, err := netip.ParseAddr(host); err == nil {
			return d.DialContext(ctx, network, address)
		}
		addrs, err := lookup(ctx, "ip", host)
		if err != nil {
			return nil, &net.OpError{Op: "dial", Net: network, Err: err}
		}
		if len(addrs) == 0 {
			return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}}
		}
		var first error
		for _, a := range addrs {
			c, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
			if err == nil {
				return c, nil
			}
			if first == nil {
				first = err
			}
			if ctx.Err() != nil {
				break
			}
		}
		return nil, first
	}
}

// checkHost refuses, before a crawl starts, a host that is or resolves to
// an address the guard would refuse: the visitor gets a clear answer
// instead of a report of failed fetches. The dial-time guard still decides.
func checkHost(ctx context.Context, lookup lookupFunc, host string) error {
	if lookup == nil {
		lookup = net.DefaultResolver.LookupNetIP
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if why := refusal(a); why != "" {
			return &RefusedError{Host: host, Addr: a.Unmap(), Reason: why}
		}
		return nil
	}
	addrs, err := lookup(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("cannot resolve %s: %w", host, err)
	}
	for _, a := range addrs {
		if why := refusal(a); why != "" {
			return &RefusedError{Host: host, Addr: a.Unmap(), Reason: why}
		}
	}
	return nil
}
