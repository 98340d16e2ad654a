package webui

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// The guard against the IANA special-purpose address registries (IPv4 and
// IPv6), each address given as an IP literal and as a name an injected
// resolver answers: no test resolves a name through the system resolver.
func TestGuardSpecialPurpose(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want string // part of the refusal; "" when the address may be reached
	}{
		// IPv4 special-purpose registry.
		{"0.0.0.0", "unspecified"},
		{"0.1.2.3", "0.0.0.0/8"},
		{"10.1.2.3", "private"},
		{"100.64.0.1", "100.64.0.0/10"},
		{"127.0.0.1", "loopback"},
		{"127.255.255.254", "loopback"},
		{"169.254.169.254", "link-local"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.0.0.8", "192.0.0.0/24"},
		{"192.0.0.170", "192.0.0.0/24"},
		{"192.0.2.1", "192.0.2.0/24"},
		{"192.88.99.1", "192.88.99.0/24"},
		{"192.168.1.1", "private"},
		{"198.18.0.1", "198.18.0.0/15"},
		{"198.19.255.255", "198.18.0.0/15"},
		{"198.51.100.7", "198.51.100.0/24"},
		{"203.0.113.9", "203.0.113.0/24"},
		{"240.0.0.1", "240.0.0.0/4"},
		{"255.255.255.255", "240.0.0.0/4"},
		{"224.0.0.251", "multicast"},
		{"239.255.255.250", "multicast"},
		// IPv4 public, next to the ranges.
		{"93.184.216.34", ""},
		{"100.128.0.1", ""},
		{"172.32.0.1", ""},
		{"198.20.0.1", ""},
		{"8.8.8.8", ""},
		// IPv6 special-purpose registry.
		{"::", "unspecified"},
		{"::1", "loopback"},
		{"::127.0.0.1", "::/96"},
		{"::10.0.0.1", "::/96"},
		{"::8.8.8.8", "::/96"},
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:10.0.0.1", "private"},
		{"64:ff9b::10.0.0.1", "standing for 10.0.0.1, a private address"},
		{"64:ff9b::127.0.0.1", "standing for 127.0.0.1, a loopback address"},
		{"64:ff9b::169.254.169.254", "link-local"},
		{"64:ff9b::100.64.0.1", "100.64.0.0/10"},
		{"64:ff9b::93.184.216.34", ""}, // NAT64 of a public address: global
		{"64:ff9b:1::10.0.0.1", "64:ff9b:1::/48"},
		{"64:ff9b:1::93.184.216.34", "64:ff9b:1::/48"},
		{"100::1", "100::/64"},
		{"100:0:0:1::1", "100:0:0:1::/64"},
		{"2001::1", "2001::/23"},                              // Teredo
		{"2001:0:4136:e378:8000:63bf:f5ff:fffe", "2001::/23"}, // Teredo, client 10.0.0.1
		{"2001:2::1", "2001::/23"},                            // benchmarking
		{"2001:10::1", "2001::/23"},                           // ORCHID
		{"2001:db8::1", "2001:db8::/32"},
		{"2002:a00:1::1", "2002::/16"},     // 6to4 of 10.0.0.1
		{"2002:7f00:1::1", "2002::/16"},    // 6to4 of 127.0.0.1
		{"2002:5db8:d822::1", "2002::/16"}, // 6to4 of a public address
		{"3fff::1", "3fff::/20"},
		{"5f00::1", "5f00::/16"},
		{"fc00::1", "private"},
		{"fd12:3456::1", "private"},
		{"fe80::1", "link-local"},
		{"fec0::1", "fec0::/10"},
		{"feff::1", "fec0::/10"},
		{"ff02::1", "multicast"},
		{"ff05::2", "multicast"},
		{"ff0e::1", "multicast"},
		// IPv6 public.
		{"2606:2800:220:1:248:1893:25c8:1946", ""},
		{"2001:4860:4860::8888", ""},
		{"2620:fe::fe", ""},
	} {
		a := netip.MustParseAddr(tc.addr)
		lookup := func(ctx context.Context, network, host string) ([]netip.Addr, error) {
			if host != "source.test" {
				return nil, errors.New("unexpected name " + host)
			}
			return []netip.Addr{netip.MustParseAddr("93.184.216.34"), a}, nil
		}
		for _, host := range []string{a.String(), "source.test"} {
			err := checkHost(context.Background(), lookup, host)
			var refused *RefusedError
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s (%s): refused: %v", host, tc.addr, err)
			case tc.want != "" && !errors.As(err, &refused):
				t.Errorf("%s (%s): not refused (%v), want %q", host, tc.addr, err, tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("%s (%s): %v, want %q", host, tc.addr, err, tc.want)
			}
		}
		// The dial-time guard decides the same.
		err := dialControl("tcp", netip.AddrPortFrom(a, 80).String(), nil)
		if (err == nil) != (tc.want == "") {
			t.Errorf("dial %s: %v, want refused %v", tc.addr, err, tc.want != "")
		}
	}
}
