package mocksource

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// docCache keeps rendered documents and packages. A key names the base
// URL, the path and the version of the document's family, so an entry is
// never stale: a step that changes a family changes the keys of its
// documents. Versions only grow, so once a path is rendered at a newer
// version no request can ask for the older one again: it is dropped then
// (before, the versions of a document that changed at every step stayed
// until the byte budget was full: 302 copies of three documents after 300
// real-time ticks). Other entries age out first-in first-out within a
// byte budget. Concurrent requests for the same key render it once.
type docCache struct {
	mu     sync.Mutex
	m      map[cacheKey]*cacheEntry
	latest map[[2]string]uint64 // by base and path, the version last cached
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
	return &docCache{m: map[cacheKey]*cacheEntry{}, latest: map[[2]string]uint64{}, budget: budget, maxN: 4096}
}

func (c *docCache) get(k cacheKey, fill func() ([]byte, string, bool)) *cacheEntry {
	c.mu.Lock()
	e := c.m[k]
	if e == nil {
		e = &cacheEntry{}
		c.m[k] = e
		c.order = append(c.order, k)
		p := [2]string{k.base, k.path}
		if old, ok := c.latest[p]; !ok || old < k.ver {
			if ok {
				c.drop(cacheKey{k.base, k.path, old})
			}
			c.latest[p] = k.ver
		}
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
		c.drop(k)
	}
	// The keys of dropped entries stay in order until evict reaches
	// them: order is rebuilt from the live keys when it holds twice as
	// many as there are entries (and 1,024 more).
	if len(c.order)-c.head > 2*len(c.m)+1024 || c.head > 1024 && c.head*2 > len(c.order) {
		live := make([]cacheKey, 0, len(c.m))
		seen := make(map[cacheKey]bool, len(c.m))
		for _, k := range c.order[c.head:] {
			if c.m[k] != nil && !seen[k] {
				seen[k] = true
				live = append(live, k)
			}
		}
		c.order, c.head = live, 0
	}
}

// drop removes the entry of k, if any; c.mu is held. Its key stays in
// order until evict reaches it. A request still filling it keeps its own
// copy, which is not counted.
func (c *docCache) drop(k cacheKey) {
	if e := c.m[k]; e != nil {
		c.bytes -= e.size
		delete(c.m, k)
		if c.latest[[2]string{k.base, k.path}] == k.ver {
			delete(c.latest, [2]string{k.base, k.path})
		}
	}
}
