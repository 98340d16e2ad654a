package mocksource

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Large bodies (issue 24): a created resource may be given a size
// (create: {path: /res/big.bin, size: 16MiB}), so that a Destination that
// truncates, or holds whole bodies in a fixed buffer, is caught. The body
// stays a pure function of seed, path and version: its filler is copied
// from the 64 KiB pools a chunk at a time, each chunk at an offset of its
// own, so 16 MiB cost one pass of copying and are never stored.

// MaxBodySize bounds a scenario's size: 64 MiB.
const MaxBodySize = 64 << 20

// size reads a byte count: an integer, or one with a unit (KiB, MiB;
// KB and MB are powers of ten).
func (p *scParser) size(n *yaml.Node, dst *int) error {
	bad := func() error {
		return p.errf(n, "size must be a byte count such as 1500, 64KiB or 16MiB (at most 64MiB), not %q", n.Value)
	}
	if n.Kind != yaml.ScalarNode {
		return bad()
	}
	s := strings.ReplaceAll(strings.TrimSpace(n.Value), "_", "")
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"KB", 1000}, {"MB", 1000000}, {"B", 1}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(v), u.mult
			break
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 || v > MaxBodySize/mult {
		return bad()
	}
	*dst = v * mult
	return nil
}

// fillLarge appends n bytes of pool to dst, a chunk at a time, each chunk
// starting at an offset drawn from key and its index, so that the body
// does not repeat with the pool's period.
func fillLarge(dst, pool []byte, key uint64, n int) []byte {
	const chunk = 4096
	x := key
	for n > 0 {
		x = mix64(x)
		k := min(chunk, n)
		off := int(x % uint64(len(pool)-chunk))
		dst = append(dst, pool[off:off+k]...)
		n -= k
	}
	return dst
}

// largeBody is the size from which a body is not kept in the buffer pool.
const largeBody = 1 << 20
