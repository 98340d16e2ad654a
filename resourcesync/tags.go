package resourcesync

// The start tags of <rs:md> and <rs:ln>, kept for the positions of their
// attributes (attrInfo.position): a Builder copies each in a chunk, used
// until full. With a pool (Builder.Pool), a full chunk is used again once
// every entry with a tag in it was given back (EntryPool.Put), as the
// front end's slabs of strings are: a tag is a value of its entry, which
// may be written over once the entry is given back (see NotifyPut). The
// tags of the header (outside any entry) go to chunks never used again.

// tagChunkSize is the size of a chunk of tags: about a window's <rs:md>
// tags of a Resource List (128 of some 150 bytes).
const tagChunkSize = 16 << 10

// tagSparesMax is the number of free chunks a pool keeps at most.
const tagSparesMax = 4

// tagStore is a Builder's chunks of tags.
type tagStore struct {
	cur   []byte // the entries'
	head  []byte // the header's
	begun int    // entries begun: those numbered below may have tags in cur
}

// retiredTags is a full chunk of the tags of the entries numbered below
// end.
type retiredTags struct {
	b   []byte
	end int
}

// keepTag is a copy of tag, in the chunk of the entry being built (the
// header's when none is).
func (b *Builder) keepTag(tag []byte) []byte {
	if len(tag) == 0 {
		return nil
	}
	t := &b.tags
	chunk := &t.head
	if b.entry != nil {
		chunk = &t.cur
	}
	if cap(*chunk)-len(*chunk) < len(tag) {
		if b.entry != nil && *chunk != nil && b.Pool != nil {
			b.Pool.retireTags(*chunk, t.begun)
		}
		*chunk = b.Pool.tagChunk(len(tag))
	}
	n := len(*chunk)
	*chunk = append(*chunk, tag...)
	return (*chunk)[n:len(*chunk):len(*chunk)]
}

// beginEntry numbers the entry e the Builder begins; first says it begins
// a run of entries (Document.Entries was empty), which a caller gives back
// together.
func (b *Builder) beginEntry(e *Entry, first bool) {
	if first && b.Pool != nil {
		b.Pool.mu.Lock()
		if b.Pool.runs == nil {
			b.Pool.runs, b.Pool.given = map[*Entry]int{}, map[int]int{}
		}
		b.Pool.runs[e] = b.tags.begun
		b.Pool.mu.Unlock()
	}
	b.tags.begun++
}

// tagChunk is an empty chunk for at least n bytes of tags: a free one,
// else a new one (p may be nil).
func (p *EntryPool) tagChunk(n int) []byte {
	if p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		if k := len(p.tagSpares); k > 0 && cap(p.tagSpares[k-1]) >= n {
			c := p.tagSpares[k-1]
			p.tagSpares[k-1] = nil
			p.tagSpares = p.tagSpares[:k-1]
			return c
		}
	}
	return make([]byte, 0, max(tagChunkSize, n))
}

// retireTags takes the full chunk c of the tags of the entries numbered
// below end, to use again once they are all given back.
func (p *EntryPool) retireTags(c []byte, end int) {
	p.mu.Lock()
	p.retired = append(p.retired, retiredTags{c[:0], end})
	p.reclaimTags()
	p.mu.Unlock()
}

// givenBack notes that the run of entries beginning with entries[0] is
// given back (Put), and frees the chunks no entry still out has a tag in.
func (p *EntryPool) givenBack(entries []*Entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	first, ok := p.runs[entries[0]]
	if !ok {
		return // not a run a Builder began with this pool
	}
	delete(p.runs, entries[0])
	p.given[first] = first + len(entries)
	for end, ok := p.given[p.low]; ok; end, ok = p.given[p.low] {
		delete(p.given, p.low)
		p.low = end
	}
	p.reclaimTags()
}

// reclaimTags moves the retired chunks whose entries were all given back
// to the free ones (p.mu held).
func (p *EntryPool) reclaimTags() {
	k := 0
	for k < len(p.retired) && p.retired[k].end <= p.low {
		if len(p.tagSpares) < tagSparesMax {
			p.tagSpares = append(p.tagSpares, p.retired[k].b)
		}
		k++
	}
	if k > 0 {
		n := copy(p.retired, p.retired[k:])
		clear(p.retired[n:])
		p.retired = p.retired[:n]
	}
}
