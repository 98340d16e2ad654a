package mocksource

// Large bodies (issue 24): a created resource may be given a size
// (create: {path: /res/big.bin, size: 16MiB}), so that a Destination that
// truncates, or holds whole bodies in a fixed buffer, is caught. The body
// stays a pure function of seed, path and version: its filler is copied
// from the 64 KiB pools a chunk at a time, each chunk at an offset of its
// own, so 16 MiB cost one pass of copying and are never stored.

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
