package webui

import (
	"context"
	"net/http"
	"net/netip"
	"time"
)

// WithLookup makes the early host check and the connections resolve names
// with f (tests: no name through the system resolver; a name that resolves
// to a public address first and to loopback when the connection is made,
// as DNS rebinding does).
func WithLookup(o Options, f func(ctx context.Context, network, host string) ([]netip.Addr, error)) Options {
	o.lookup = f
	return o
}

// NewTransportWithLookup is NewTransport resolving names with lookup.
func NewTransportWithLookup(allowPrivate bool, timeout time.Duration, lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)) *http.Transport {
	return newTransport(allowPrivate, timeout, lookup)
}
