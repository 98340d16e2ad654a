package mocksource

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// docCache keeps rendered documents and packages. A key names the base
// URL, the path and the version of the document's family, so an entry is
// never stale: a step that changes a family changes the keys of its
// documents, and old entries age out first-in first-out within a byte
// budget. Concurrent requests for the same key render it once.
type docCache struct {
	mu     sync.Mutex
	m      map[cacheKey]*cacheEntry
	order  []cacheKey
	head   int
	bytes  int64
	budget int64
	maxN   int
}

type cacheKey struct {
	base, path string
	ver        uint64
}

type cacheEntry struct {
	once  sync.Once
	data  []byte
	ctype string
	etag  string
	ok    bool
	size  int64
}

func newDocCache(budget int64) *docCache {
	return &docCache{m: map[cacheKey]*cacheEntry{}, budget: budget, maxN: 4096}
}

func (c *docCache) get(k cacheKey, fill func() ([]byte, string, bool)) *cacheEntry {
	c.mu.Lock()
	e := c.m[k]
	if e == nil {
		e = &cacheEntry{}
		c.m[k] = e
		c.order = append(c.order, k)
	}
	c.mu.Unlock()
	e.once.Do(func() {
		e.data, e.ctype, e.ok = fill()
		if e.ok {
			sum := sha256.Sum256(e.data)
			e.etag = `"` + hex.EncodeToString(sum[:8]) + `"`
		}
		c.mu.Lock()
		if c.m[k] == e {
			e.size = int64(len(e.data)) + 256
			c.bytes += e.size
		}
		c.evict()
		c.mu.Unlock()
	})
	return e
}

// evict drops the oldest entries while over budget; c.mu is held. The
// newest entry always stays.
func (c *docCache) evict() {
	for (c.bytes > c.budget || len(c.m) > c.maxN) && len(c.order)-c.head > 1 {
		k := c.order[c.head]
		c.order[c.head] = cacheKey{}
		c.head++
		if e := c.m[k]; e != nil {
			c.bytes -= e.size
			delete(c.m, k)
		}
	}
	if c.head > 1024 && c.head*2 > len(c.order) {
		c.order = append([]cacheKey(nil), c.order[c.head:]...)
		c.head = 0
	}
}
