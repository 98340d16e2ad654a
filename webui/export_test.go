package webui

import (
	"context"
	"net/netip"
)

// WithLookup makes the early host check resolve names with f (tests: a
// name that resolves to a public address first and to loopback when the
// connection is made, as DNS rebinding does).
func WithLookup(o Options, f func(ctx context.Context, network, host string) ([]netip.Addr, error)) Options {
	o.lookup = f
	return o
}
