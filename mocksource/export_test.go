package mocksource

// CacheStats is the number of documents the cache holds and their bytes.
func (s *Source) CacheStats() (entries int, bytes int64) {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	return len(s.cache.m), s.cache.bytes
}
