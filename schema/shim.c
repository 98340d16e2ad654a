// See shim.h. A pass keeps its state in its own structures and is driven
// by one goroutine (whichever thread it runs on: libxml2's per-thread
// error channel is silenced for every thread, and a pass reads its errors
// from its own contexts); only its spare and handed-over event buffers are
// shared, under its mutex. The registry of embedded schemas and the
// start-up capture buffer are written once, during start-up.

#define _GNU_SOURCE // memrchr
#include <pthread.h>
#include "shim.h"

#include <stdio.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

#include <libxml/SAX2.h>
#include <libxml/globals.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlIO.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>

// RSC_MSG_CAP bounds every message we copy (libxml2 quotes names and values
// in its messages, and those come from untrusted input); RSC_NAME_CAP bounds
// element names.
#define RSC_MSG_CAP 1024
#define RSC_NAME_CAP 256

#define RSC_SITEMAP_NS "http://www.sitemaps.org/schemas/sitemap/0.9"
#define RSC_RS_NS "http://www.openarchives.org/rs/terms/"

// Parser options: no network, no error output of its own, 32-bit line
// numbers. Never NOENT, DTDLOAD, DTDATTR, DTDVALID, XINCLUDE or HUGE.
#define RSC_PARSE_OPTIONS \
	(XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES)

static void rsc_silent(void *ctx, const char *msg, ...) {
	(void)ctx;
	(void)msg;
}

// ---- embedded schemas and the entity loader ----

#define RSC_MAX_DOCS 8

static struct {
	const char *uri;
	const char *data;
} rsc_docs[RSC_MAX_DOCS];
static int rsc_ndocs;

int rsc_register(const char *uri, const char *data) {
	if (rsc_ndocs >= RSC_MAX_DOCS) {
		return -1;
	}
	rsc_docs[rsc_ndocs].uri = uri;
	rsc_docs[rsc_ndocs].data = data;
	rsc_ndocs++;
	return 0;
}

// rsc_loader replaces libxml2's external entity loader for the whole
// process: it serves the registered schemas and refuses every other URL,
// so nothing (no schema import, no DTD, no entity) is ever read from the
// file system or the network.
static xmlParserInputPtr rsc_loader(const char *URL, const char *ID,
                                    xmlParserCtxtPtr ctxt) {
	(void)ID;
	if (URL == NULL) {
		return NULL;
	}
	for (int i = 0; i < rsc_ndocs; i++) {
		if (strcmp(URL, rsc_docs[i].uri) != 0) {
			continue;
		}
		xmlParserInputBufferPtr buf = xmlParserInputBufferCreateMem(
		    rsc_docs[i].data, (int)strlen(rsc_docs[i].data), XML_CHAR_ENCODING_NONE);
		if (buf == NULL) {
			return NULL;
		}
		xmlParserInputPtr in = xmlNewIOInputStream(ctxt, buf, XML_CHAR_ENCODING_NONE);
		if (in == NULL) {
			xmlFreeParserInputBuffer(buf);
			return NULL;
		}
		// The base URI of the loaded schema, for its own relative imports.
		in->filename = (const char *)xmlStrdup((const xmlChar *)URL);
		return in;
	}
	return NULL;
}

void rsc_init(void) {
	xmlInitParser();
	// The generic error channel is per thread in libxml2; set it on this
	// thread and as the default for threads libxml2 has not seen yet.
	xmlSetGenericErrorFunc(NULL, rsc_silent);
	xmlThrDefSetGenericErrorFunc(NULL, rsc_silent);
	xmlSetExternalEntityLoader(rsc_loader);
}

// ---- start-up capture ----

static struct {
	int n;
	size_t len;
	char text[4096];
} rsc_cap;

static void rsc_capture_handler(void *ud, xmlErrorPtr err) {
	(void)ud;
	if (err == NULL) {
		return;
	}
	rsc_cap.n++;
	if (err->message == NULL || rsc_cap.len >= sizeof rsc_cap.text - 1) {
		return;
	}
	int w = snprintf(rsc_cap.text + rsc_cap.len, sizeof rsc_cap.text - rsc_cap.len,
	                 "%s(line %d) %s", rsc_cap.len ? "; " : "", err->line, err->message);
	if (w > 0) {
		rsc_cap.len += (size_t)w;
		if (rsc_cap.len > sizeof rsc_cap.text - 1) {
			rsc_cap.len = sizeof rsc_cap.text - 1;
		}
	}
}

void rsc_capture_start(void) {
	memset(&rsc_cap, 0, sizeof rsc_cap);
	xmlSetStructuredErrorFunc(NULL, rsc_capture_handler);
}

int rsc_capture_stop(char **text) {
	xmlSetStructuredErrorFunc(NULL, NULL);
	*text = strdup(rsc_cap.text);
	return rsc_cap.n;
}

// ---- findings ----

// rsc_copy returns a malloc'd copy of s without trailing whitespace, cut to
// at most cap bytes on a UTF-8 boundary, with "…" appended when cut.
static char *rsc_copy(const char *s, size_t cap) {
	if (s == NULL) {
		return NULL;
	}
	size_t n = strnlen(s, cap + 1);
	int cut = n > cap;
	if (cut) {
		n = cap;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) {
			n--;
		}
	} else {
		while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ')) {
			n--;
		}
	}
	char *out = malloc(n + 4);
	if (out == NULL) {
		return NULL;
	}
	memcpy(out, s, n);
	if (cut) {
		memcpy(out + n, "\xE2\x80\xA6", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
}

static void rsc_add(rsc_result *res, int line, int column, int level, int parse,
                    const char *element, const char *message) {
	if (res->n >= res->max) {
		res->omitted++;
		return;
	}
	if (res->n == res->cap) {
		int ncap = res->cap ? res->cap * 2 : 16;
		if (ncap > res->max) {
			ncap = res->max;
		}
		rsc_error *e = realloc(res->errors, (size_t)ncap * sizeof *e);
		if (e == NULL) {
			res->omitted++;
			return;
		}
		res->errors = e;
		res->cap = ncap;
	}
	rsc_error *e = &res->errors[res->n++];
	e->line = line;
	e->column = column;
	e->level = level;
	e->parse = parse;
	e->element = rsc_copy(element, RSC_NAME_CAP);
	e->message = rsc_copy(message ? message : "(no message)", RSC_MSG_CAP);
}

static void rsc_clear(rsc_result *res) {
	for (int i = 0; i < res->n; i++) {
		free(res->errors[i].element);
		free(res->errors[i].message);
	}
	res->n = 0;
	res->omitted = 0;
}

void rsc_result_free(rsc_result *res) {
	if (res == NULL) {
		return;
	}
	rsc_clear(res);
	free(res->errors);
	res->errors = NULL;
	res->cap = 0;
}


// ---- one document, in one streaming pass ----
//
// The document is pushed into libxml2's push parser chunk by chunk, as the
// Go side reads it, parsed with our SAX2 handlers and validated on the fly
// (xmlSchemaSAXPlug): no tree is built and the document is never whole in
// memory. Our SAX callbacks write the element events the Go side builds the
// ResourceSync model from:
//   'S' u32 line, u32 column, ns, name local, u32 nattrs, nattrs x (ns, name local, str value), str tag
//   'T' str text   (only for elements without element children)
//   'E'
// where str is a u32 length and that many bytes, ns is written by
// rsc_put_ns, name by rsc_put_name, and tag is the start tag as written,
// from its '<' to its closing '>' or '/>' excluded, for an element of the ResourceSync
// namespace with attributes (empty otherwise, or when it is not known):
// the Go side finds the attributes' positions in it.

typedef struct {
	unsigned char *p;
	size_t len, cap;
	int oom;
} rsc_buf;

static void rsc_grow(rsc_buf *b, size_t need) {
	if (b->oom || b->len + need <= b->cap) {
		return;
	}
	size_t ncap = b->cap ? b->cap : 65536;
	while (ncap < b->len + need) {
		ncap *= 2;
	}
	unsigned char *np = realloc(b->p, ncap);
	if (np == NULL) {
		b->oom = 1;
		return;
	}
	b->p = np;
	b->cap = ncap;
}

// rsc_le32 writes v at p, little-endian.
static inline void rsc_le32(unsigned char *p, uint32_t v) {
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = (v >> 24) & 0xff;
}

static inline void rsc_put_u32(rsc_buf *b, uint32_t v) {
	if (b->len + 4 > b->cap) {
		rsc_grow(b, 4);
		if (b->oom) {
			return;
		}
	}
	rsc_le32(b->p + b->len, v);
	b->len += 4;
}

// rsc_room makes room for need more bytes in b; 0 when memory ran out.
static inline int rsc_room(rsc_buf *b, size_t need) {
	if (b->len + need > b->cap) {
		rsc_grow(b, need);
	}
	return !b->oom;
}

static inline void rsc_put_bytes(rsc_buf *b, const xmlChar *s, size_t n) {
	if (b->len + 4 + n > b->cap) {
		rsc_grow(b, 4 + n);
		if (b->oom) {
			return;
		}
	}
	unsigned char *p = b->p + b->len;
	rsc_le32(p, (uint32_t)n);
	if (n) {
		memcpy(p + 4, s, n);
	}
	b->len += 4 + n;
}

static void rsc_put_str(rsc_buf *b, const xmlChar *s) {
	rsc_put_bytes(b, s, s ? strlen((const char *)s) : 0);
}


// ---- the pass and the Go side ----
//
// One goroutine drives a pass: it pushes the document in chunks
// (rsc_pass_push parses each as it comes, on the calling thread: a pass
// has no thread of its own, and nothing here waits or calls into Go), and
// takes the element events each push completed (rsc_pass_take) in buffers
// of about RSC_CHUNK bytes, which the Go side reads where they are and
// gives back (rsc_pass_recycle, the one call another goroutine may make
// concurrently) to be written again. A document goes through a few such
// buffers, not a fresh allocation per chunk (every fresh page costs a
// fault). Blocking, when Go's side is behind, is Go's: on a channel, not
// in C (a goroutine that waits in a cgo call holds a thread, and made the
// Go scheduler hand its processor over on every wait).

#define RSC_CHUNK (64 * 1024)                  // 256 KiB chunks cost 1.5 MB more peak memory and saved no time
#define RSC_EV_CAP (RSC_CHUNK + RSC_CHUNK / 4) // an event buffer, with room for the event that fills it
#define RSC_SPARE 5                            // event buffers kept for reuse at most

// RSC_PUSH is how much of a chunk xmlParseChunk is given at a time. Each
// call first moves what libxml2's buffer holds past what it parsed to the
// buffer's start (xmlParserInputShrink, a memmove): all of a 64 KiB chunk
// pushed in one call, a few KiB in 4 KiB calls. The reader thread
// of a 50,000-entry Resource List runs 2.2 % fewer instructions (callgrind:
// 1,353 M against 1,384; 1 KiB 1,463 M, 2 KiB 1,461, 8 KiB 1,467 and 16 KiB
// 1,475 against 64 KiB's 1,474 before the attribute count was cut).
#define RSC_PUSH 4096

// rsc_chunk is a buffer of events ready for the Go side.
typedef struct rsc_chunk {
	struct rsc_chunk *next;
	unsigned char *p;
	size_t len, cap;
} rsc_chunk;

// rsc_live_passes counts the passes not yet freed, for the tests' leak check.
static long rsc_live_passes;

long rsc_pass_live(void) { return __atomic_load_n(&rsc_live_passes, __ATOMIC_SEQ_CST); }

// ---- the pass ----

// rsc_table numbers strings by pointer, 1 to cap in the order they are
// first written: a hash of the pointer, probed linearly, in twice as many
// slots as it holds at most (so a miss ends at an empty slot soon, even
// when it is full).
#define RSC_TABLE_BITS 7
#define RSC_TABLE_SLOTS (1 << RSC_TABLE_BITS)

typedef struct {
	const xmlChar *key[RSC_TABLE_SLOTS];
	uint32_t id[RSC_TABLE_SLOTS];
	int n, cap; // cap <= RSC_TABLE_SLOTS / 2
} rsc_table;

static inline unsigned rsc_slot(const xmlChar *s) {
	return (unsigned)(((uint64_t)(uintptr_t)s * 0x9E3779B97F4A7C15ull) >> (64 - RSC_TABLE_BITS));
}

// rsc_table_find is the slot of s in t, or of the empty slot where it
// would go.
static inline unsigned rsc_table_find(const rsc_table *t, const xmlChar *s) {
	unsigned i = rsc_slot(s);
	while (t->key[i] != NULL && t->key[i] != s) {
		i = (i + 1) & (RSC_TABLE_SLOTS - 1);
	}
	return i;
}

typedef struct {
	xmlParserCtxtPtr ctxt;
	rsc_pass *ps;
	rsc_result *res;
	rsc_buf *events; // NULL: no events wanted
	rsc_buf text;    // character data of the current element
	// leaf[d] is 1 while the element at depth d has no element child;
	// line[d] and col[d] are where its start tag begins.
	unsigned char *leaf;
	int *line, *col;
	size_t depth, capdepth;
	int root_seen;
	// closed_line, closed_col: the start of the element whose end tag was
	// read last (the validator runs after our end handler).
	int closed_line, closed_col;
	int bad_root; // the root is not a Sitemap root: the schema's findings are noise
	int doctype;  // a DOCTYPE was met (the parser was stopped there)
	int oom;
	// Namespace URIs come from the parser's dictionary, one pointer per
	// URI: each is written once, then referred to by its number.
	rsc_table ns;
	// Local names of elements and attributes, likewise (rsc_put_name):
	// the dictionary's own strings only, so that a pointer is one name.
	rsc_table names;
	// The ResourceSync namespace URI once seen (a dictionary pointer).
	const xmlChar *rs_ns;
	// prolog holds the input from its start while the root element is not
	// seen: the prolog, for rsc_prolog_doctype.
	rsc_buf prolog;
	// feed is the input rsc_pass_push is parsing (feed_len bytes from the
	// absolute offset feed_off), NULL between pushes: what rsc_locate
	// counts newlines in.
	const unsigned char *feed;
	long feed_off;
	size_t feed_len;
	// Where rsc_locate stopped: offset at, on line at_line, whose first
	// byte is at at_linestart. Between pushes, at is the end of the input
	// fed so far.
	long at, at_linestart;
	int at_line;
	// rsc_last_tag's last answer, for the parser position tag_cur.
	long tag_cur, tag_off;
	int tag_line, tag_col;
} rsc_stream;

struct rsc_pass {
	rsc_stream st;
	rsc_result res; // the findings so far, moved out by rsc_pass_finish
	xmlSchemaValidCtxtPtr vctxt;
	xmlSchemaSAXPlugPtr plug;
	rsc_buf evbuf;  // the events being written
	long fed;       // bytes pushed
	int stopped;    // the parse stopped (a fatal error, a DOCTYPE): no more input
	int finished;
	// Buffers of events ready for the Go side, in order.
	rsc_chunk *ready, *ready_tail;
	// Under mu, as rsc_pass_recycle may run on another thread: buffers the
	// Go side holds (taken, not given back), freed with the pass whatever
	// became of them; and spare ones, of RSC_EV_CAP bytes, to write again.
	pthread_mutex_t mu;
	unsigned char **out;
	int nout, capout;
	unsigned char *spare[RSC_SPARE];
	int nspare;
};

// rsc_ev_buffer gives b an empty event buffer: a spare one, else a new one.
static void rsc_ev_buffer(rsc_pass *ps, rsc_buf *b) {
	unsigned char *p = NULL;
	pthread_mutex_lock(&ps->mu);
	if (ps->nspare > 0) {
		p = ps->spare[--ps->nspare];
	}
	pthread_mutex_unlock(&ps->mu);
	if (p == NULL) {
		p = malloc(RSC_EV_CAP);
	}
	b->p = p;
	b->len = 0;
	b->cap = p != NULL ? RSC_EV_CAP : 0; // NULL: rsc_grow tries again
}

// rsc_prolog_append adds the next n bytes of input to the prolog copy.
static int rsc_prolog_append(rsc_stream *st, const unsigned char *p, size_t n) {
	rsc_buf *w = &st->prolog;
	rsc_grow(w, n);
	if (w->oom) {
		return -1;
	}
	memcpy(w->p + w->len, p, n);
	w->len += n;
	return 0;
}

// rsc_flush makes the events written so far ready for the Go side when
// they fill a chunk (call it at event boundaries only).
static void rsc_flush(rsc_stream *st, int force) {
	rsc_buf *b = st->events;
	if (b == NULL || b->oom || (b->len < RSC_CHUNK && !force) || b->len == 0) {
		return;
	}
	rsc_chunk *c = malloc(sizeof *c);
	if (c == NULL) {
		st->oom = 1;
		return;
	}
	rsc_pass *ps = st->ps;
	c->next = NULL;
	c->p = b->p;
	c->len = b->len;
	c->cap = b->cap;
	if (ps->ready_tail != NULL) {
		ps->ready_tail->next = c;
	} else {
		ps->ready = c;
	}
	ps->ready_tail = c;
	b->p = NULL;
	b->len = b->cap = 0;
	if (!force) {
		rsc_ev_buffer(ps, b);
	}
}

// rsc_put_numbered writes s as u32 id: n for the n-th string of t
// (pointers compared: each must be one string for the life of the pass),
// written as id with its bytes the first time (ids above 0x7fffffff flag a
// definition), or inline as a plain string (id 0xffffffff) when the table
// is full or s may not be numbered (numbered, asked only of a string not
// numbered yet while there is room).
static void rsc_put_numbered(rsc_buf *b, rsc_table *t, const xmlChar *s, int (*numbered)(rsc_stream *, const xmlChar *),
                             rsc_stream *st) {
	unsigned i = rsc_table_find(t, s);
	if (t->key[i] != NULL) {
		rsc_put_u32(b, t->id[i]);
		return;
	}
	if (t->n < t->cap && numbered(st, s)) {
		t->key[i] = s;
		t->id[i] = (uint32_t)++t->n;
		rsc_put_u32(b, 0x80000000u | t->id[i]);
		rsc_put_str(b, s);
		return;
	}
	rsc_put_u32(b, 0xffffffffu);
	rsc_put_str(b, s);
}

static void rsc_put_ns(rsc_stream *st, rsc_buf *b, const xmlChar *uri);
static void rsc_put_name(rsc_stream *st, rsc_buf *b, const xmlChar *name);

// rsc_put_known writes the number of s (a namespace URI when t is st->ns,
// NULL written 0; else a local name) at w, in b, which has room for need
// bytes from w on, and returns where the event goes on: at once when s is
// numbered already; else b's length is set to w, s written by rsc_put_ns
// or rsc_put_name, and room for need bytes made again (NULL: out of
// memory).
static inline unsigned char *rsc_put_known(rsc_stream *st, rsc_buf *b, unsigned char *w, rsc_table *t,
                                           const xmlChar *s, size_t need) {
	if (s != NULL) {
		unsigned i = rsc_table_find(t, s);
		if (t->key[i] != NULL) {
			rsc_le32(w, t->id[i]);
			return w + 4;
		}
	} else if (t == &st->ns) {
		rsc_le32(w, 0);
		return w + 4;
	}
	b->len = (size_t)(w - b->p);
	if (t == &st->ns) {
		rsc_put_ns(st, b, s);
	} else {
		rsc_put_name(st, b, s);
	}
	return rsc_room(b, need) ? b->p + b->len : NULL;
}

static int rsc_any(rsc_stream *st, const xmlChar *s) {
	(void)st;
	(void)s;
	return 1;
}

// rsc_dict_owned says whether the parser's dictionary owns name (xmlDictOwns
// walks the dictionary's pools).
static int rsc_dict_owned(rsc_stream *st, const xmlChar *name) {
	return st->ctxt->dict != NULL && xmlDictOwns(st->ctxt->dict, name) == 1;
}

// rsc_put_ns writes a namespace URI, numbered (they come from the parser's
// dictionary), 0 for none.
static void rsc_put_ns(rsc_stream *st, rsc_buf *b, const xmlChar *uri) {
	if (uri == NULL) {
		rsc_put_u32(b, 0);
		return;
	}
	rsc_put_numbered(b, &st->ns, uri, rsc_any, st);
}

// rsc_put_name writes a local name, numbered in a table of its own: a
// document uses a few dozen names, written once each instead of at every
// element and attribute. Only names the parser's dictionary owns are
// numbered; any other is written inline.
static void rsc_put_name(rsc_stream *st, rsc_buf *b, const xmlChar *name) {
	if (name == NULL) {
		rsc_put_u32(b, 0xffffffffu);
		rsc_put_str(b, name);
		return;
	}
	rsc_put_numbered(b, &st->names, name, rsc_dict_owned, st);
}

// rsc_newlines counts the newlines of p[0..n), and sets *after to the
// index just past the last one (unchanged when there is none). avail >= n
// bytes may be read at p. With SSE2 (every x86-64), 16 bytes at a time,
// the last block read whole when avail allows, its bytes from n on left
// out: the ranges are short (from one tag to the next), where memchr,
// called once per newline and once more, cost twice as much.
#if defined(__SSE2__)
// rsc_tail16 is the k < 16 bytes at p, then zeros: the last block of what
// may be read (out of line, so that the count's loop keeps no buffer).
__attribute__((noinline)) static __m128i rsc_tail16(const unsigned char *p, size_t k) {
	unsigned char tail[16] = {0};
	memcpy(tail, p, k);
	return _mm_loadu_si128((const __m128i *)(const void *)tail);
}

// rsc_bits counts the bits of m, few (one per newline).
static inline size_t rsc_bits(unsigned m) {
	size_t n = 0;
	for (; m != 0; m &= m - 1) {
		n++;
	}
	return n;
}
#endif

static inline size_t rsc_newlines(const unsigned char *p, size_t n, size_t avail, size_t *after) {
	size_t count = 0;
#if defined(__SSE2__)
	const __m128i nl = _mm_set1_epi8('\n');
	size_t i = 0, last = 0;
	for (; i + 16 <= n; i += 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), nl));
		if (m != 0) {
			last = i + 32 - (size_t)__builtin_clz(m); // past the highest bit set
			count += rsc_bits(m);
		}
	}
	if (i < n) {
		__m128i v = avail - i >= 16 ? _mm_loadu_si128((const __m128i *)(const void *)(p + i)) : rsc_tail16(p + i, avail - i);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) & ((1u << (n - i)) - 1);
		if (m != 0) {
			last = i + 32 - (size_t)__builtin_clz(m);
			count += rsc_bits(m);
		}
	}
	if (count > 0) {
		*after = last;
	}
#else
	(void)avail;
	for (size_t i = 0; i < n;) {
		const unsigned char *q = memchr(p + i, '\n', n - i);
		if (q == NULL) {
			break;
		}
		count++;
		i = (size_t)(q - p) + 1;
		*after = i;
	}
#endif
	return count;
}

// rsc_advance moves where rsc_locate stopped to off, in the input being
// fed. Returns 0 when that part of the input is not there.
static inline int rsc_advance(rsc_stream *st, long off) {
	if (st->feed == NULL || st->at < st->feed_off || off > st->feed_off + (long)st->feed_len) {
		return 0;
	}
	size_t i = (size_t)(st->at - st->feed_off), after = 0;
	size_t n = rsc_newlines(st->feed + i, (size_t)(off - st->at), st->feed_len - i, &after);
	if (n > 0) {
		st->at_line += (int)n;
		st->at_linestart = st->at + (long)after;
	}
	st->at = off;
	return 1;
}

// rsc_locate gives the line and column (1-based, in bytes, as the Go
// parser counts them) of the absolute byte offset off of the input. It
// counts newlines forward from where it last stopped, in the input being
// fed (rsc_pass_push moves that to the end of each piece it parsed), so
// that locating the tags of a document in order costs one pass over it
// whatever its layout (a one-line document included). A step back (a tag
// begun in an earlier piece, or located again) is answered on the same
// line from what is known, further back from the parser's own buffer.
// Returns 0 when the position cannot be known.
static int rsc_locate(rsc_stream *st, long off, int *line, int *col) {
	if (off >= st->at) {
		if (!rsc_advance(st, off)) {
			return 0;
		}
		*line = st->at_line;
		*col = (int)(off - st->at_linestart) + 1;
		return 1;
	}
	if (off >= st->at_linestart) {
		*line = st->at_line;
		*col = (int)(off - st->at_linestart) + 1;
		return 1;
	}
	xmlParserInputPtr in = st->ctxt->input;
	long base = (long)in->consumed, blen = (long)(in->end - in->base);
	if (off < base || st->at > base + blen) {
		return 0;
	}
	const xmlChar *b = in->base - base; // b[k] is the byte at absolute offset k
	int back = 0;
	for (long k = off; k < st->at; k++) {
		back += b[k] == '\n';
	}
	long start = off;
	while (start > base && b[start - 1] != '\n') {
		start--;
	}
	if (start == base && base > 0) {
		return 0; // the line starts before the parser's buffer
	}
	*line = st->at_line - back;
	*col = (int)(off - start) + 1;
	return 1;
}

// rsc_last_tag finds the '<' of the tag the parser has just read (or is in):
// its absolute byte offset, line and column. Returns 0 when it is no longer
// in the parser's buffer. The answer for one parser position is kept: the
// validator reports every finding on a start tag (one per attribute, say)
// from the same position.
static int rsc_last_tag(rsc_stream *st, long *offset, int *line, int *col) {
	xmlParserInputPtr in = st->ctxt->input;
	if (in == NULL || in->base == NULL || in->cur == NULL) {
		return 0;
	}
	long cur = (long)in->consumed + (long)(in->cur - in->base);
	if (st->tag_cur == cur && st->tag_off >= 0) {
		*offset = st->tag_off;
		*line = st->tag_line;
		*col = st->tag_col;
		return 1;
	}
	const xmlChar *base = in->base;
	const xmlChar *p = memrchr(base, '<', (size_t)(in->cur - base));
	if (p == NULL) {
		return 0;
	}
	long off = (long)in->consumed + (long)(p - base);
	if (in->buf != NULL && in->buf->encoder != NULL) {
		return 0; // the parser's buffer is not the input (never for UTF-8)
	}
	if (!rsc_locate(st, off, line, col)) {
		return 0;
	}
	st->tag_cur = cur;
	st->tag_off = *offset = off;
	st->tag_line = *line;
	st->tag_col = *col;
	return 1;
}

static void rsc_s_start(void *ud, const xmlChar *localname, const xmlChar *prefix, const xmlChar *URI,
                        int nb_namespaces, const xmlChar **namespaces, int nb_attributes,
                        int nb_defaulted, const xmlChar **attributes) {
	(void)prefix;
	(void)nb_namespaces;
	(void)namespaces;
	(void)nb_defaulted;
	rsc_stream *st = ud;
	if (!st->root_seen) {
		st->root_seen = 1;
		if (URI == NULL || !xmlStrEqual(URI, BAD_CAST RSC_SITEMAP_NS) ||
		    !(xmlStrEqual(localname, BAD_CAST "urlset") || xmlStrEqual(localname, BAD_CAST "sitemapindex"))) {
			// rs.xsd's global rs:md and rs:ln would be accepted as roots, and
			// any other root gets libxml2's findings for every element.
			char msg[RSC_MSG_CAP + 512];
			char name[RSC_NAME_CAP + 1];
			snprintf(name, sizeof name, "%s", (const char *)localname);
			if (URI != NULL) {
				char nsbuf[RSC_NAME_CAP + 1];
				snprintf(nsbuf, sizeof nsbuf, "%s", (const char *)URI);
				snprintf(msg, sizeof msg,
				         "Element '{%s}%s': This element is not expected as the document root. "
				         "Expected is ( urlset or sitemapindex ) in the namespace " RSC_SITEMAP_NS ".",
				         nsbuf, name);
			} else {
				snprintf(msg, sizeof msg,
				         "Element '%s': This element is not expected as the document root: it is in no "
				         "namespace. Expected is ( urlset or sitemapindex ) in the namespace " RSC_SITEMAP_NS ".",
				         name);
			}
			long off;
			int line = 0, col = 0;
			rsc_last_tag(st, &off, &line, &col);
			rsc_clear(st->res);
			rsc_add(st->res, line, col, XML_ERR_ERROR, 0, (const char *)localname, msg);
			st->bad_root = 1;
		}
	}
	if (st->depth > 0) {
		st->leaf[st->depth - 1] = 0;
	}
	if (st->depth == st->capdepth) {
		size_t ncap = st->capdepth ? st->capdepth * 2 : 64;
		unsigned char *l = realloc(st->leaf, ncap);
		int *ln = l ? realloc(st->line, ncap * sizeof *ln) : NULL;
		int *cl = ln ? realloc(st->col, ncap * sizeof *cl) : NULL;
		if (l) st->leaf = l;
		if (ln) st->line = ln;
		if (cl) st->col = cl;
		if (l == NULL || ln == NULL || cl == NULL) {
			st->oom = 1;
			xmlStopParser(st->ctxt);
			return;
		}
		st->capdepth = ncap;
	}
	long off = -1;
	int line = 0, col = 0;
	if (!rsc_last_tag(st, &off, &line, &col)) {
		off = -1;
	}
	st->line[st->depth] = line;
	st->col[st->depth] = col;
	st->leaf[st->depth++] = 1;
	st->text.len = 0;
	rsc_buf *b = st->events;
	if (b == NULL) {
		return;
	}
	// The start tag as written, for the attributes' positions: the parser
	// stands at its closing '>' or '/>', and its buffer holds it from its
	// '<' (just located) on (it is shrunk only before a tag is parsed).
	// Only ResourceSync elements (<rs:md>, <rs:ln>) need it: the model
	// places other attributes at their element.
	xmlParserInputPtr in = st->ctxt->input;
	long base = (long)in->consumed, cur = base + (long)(in->cur - in->base);
	if (nb_attributes > 0 && URI != NULL && URI != st->rs_ns && xmlStrEqual(URI, BAD_CAST RSC_RS_NS)) {
		st->rs_ns = URI;
	}
	const xmlChar *tag = NULL;
	size_t taglen = 0;
	if (nb_attributes > 0 && URI != NULL && URI == st->rs_ns && off >= base && cur > off) {
		tag = in->base + (off - base);
		taglen = (size_t)(cur - off);
	}
	// Room for the whole event is made once (need bytes, as long as its
	// names and namespaces are numbered already: rsc_put_known makes it
	// again after writing one that is not), and it is written without a
	// test at every field.
	size_t need = 1 + 4 * 6 + (size_t)nb_attributes * 12 + taglen;
	for (int i = 0; i < nb_attributes; i++) {
		need += (size_t)(attributes[5 * i + 4] - attributes[5 * i + 3]);
	}
	unsigned char *w = rsc_room(b, need) ? b->p + b->len : NULL;
	if (w != NULL) {
		w[0] = 'S';
		rsc_le32(w + 1, line < 0 ? 0 : (uint32_t)line);
		rsc_le32(w + 5, col < 0 ? 0 : (uint32_t)col);
		w = rsc_put_known(st, b, w + 9, &st->ns, URI, need);
	}
	if (w != NULL) {
		w = rsc_put_known(st, b, w, &st->names, localname, need);
	}
	if (w != NULL) {
		rsc_le32(w, (uint32_t)nb_attributes);
		w += 4;
	}
	for (int i = 0; i < nb_attributes && w != NULL; i++) {
		const xmlChar **a = attributes + 5 * i; // localname, prefix, URI, value, end
		w = rsc_put_known(st, b, w, &st->ns, a[2], need);
		if (w != NULL) {
			w = rsc_put_known(st, b, w, &st->names, a[0], need);
		}
		if (w != NULL) {
			size_t n = (size_t)(a[4] - a[3]);
			rsc_le32(w, (uint32_t)n);
			memcpy(w + 4, a[3], n);
			w += 4 + n;
		}
	}
	if (w != NULL) {
		rsc_le32(w, (uint32_t)taglen);
		if (taglen > 0) {
			memcpy(w + 4, tag, taglen);
		}
		b->len = (size_t)(w + 4 + taglen - b->p);
	}
	if (b->len >= RSC_CHUNK) { // rsc_flush's test, without its call at every event
		rsc_flush(st, 0);
	}
	if (b->oom || st->oom) {
		st->oom = 1;
		xmlStopParser(st->ctxt);
	}
}

static void rsc_s_end(void *ud, const xmlChar *localname, const xmlChar *prefix, const xmlChar *URI) {
	(void)localname;
	(void)prefix;
	(void)URI;
	rsc_stream *st = ud;
	if (st->depth == 0) {
		return;
	}
	int leaf = st->leaf[--st->depth];
	st->closed_line = st->line[st->depth];
	st->closed_col = st->col[st->depth];
	rsc_buf *b = st->events;
	if (b != NULL) {
		size_t n = leaf ? st->text.len : 0;
		if (rsc_room(b, 1 + 4 + n + 1)) {
			unsigned char *w = b->p + b->len;
			if (n > 0) {
				w[0] = 'T';
				rsc_le32(w + 1, (uint32_t)n);
				memcpy(w + 5, st->text.p, n);
				w += 5 + n;
			}
			*w++ = 'E';
			b->len = (size_t)(w - b->p);
		}
		if (st->events->len >= RSC_CHUNK) {
			rsc_flush(st, 0);
		}
		if (st->events->oom || st->oom) {
			st->oom = 1;
			xmlStopParser(st->ctxt);
		}
	}
	st->text.len = 0;
}

static void rsc_s_chars(void *ud, const xmlChar *ch, int len) {
	rsc_stream *st = ud;
	if (st->events == NULL || st->depth == 0 || !st->leaf[st->depth - 1] || len <= 0) {
		return;
	}
	rsc_grow(&st->text, (size_t)len);
	if (st->text.oom) {
		st->oom = 1;
		xmlStopParser(st->ctxt);
		return;
	}
	memcpy(st->text.p + st->text.len, ch, (size_t)len);
	st->text.len += (size_t)len;
}

// rsc_s_doctype stops the pass at a DOCTYPE, before its internal subset is
// read: such documents are refused (the Go side refuses them before
// feeding when it sees one at the start; this is the belt to that brace).
static void rsc_s_doctype(void *ud, const xmlChar *name, const xmlChar *eid, const xmlChar *sid) {
	(void)name;
	(void)eid;
	(void)sid;
	rsc_stream *st = ud;
	st->doctype = 1;
	xmlStopParser(st->ctxt);
}

static void rsc_s_valid_error(void *ud, xmlErrorPtr err) {
	rsc_stream *st = ud;
	if (st == NULL || err == NULL || st->bad_root) {
		return;
	}
	if (st->res->n >= st->res->max) {
		st->res->omitted++; // not kept: no need to place it
		return;
	}
	// Streaming validation knows no node: the finding is placed at the tag
	// the parser has just read; when that is an end tag (a missing child is
	// found there), at the start tag of the element it closes.
	long off;
	int line = err->line, col = 0;
	if (rsc_last_tag(st, &off, &line, &col)) {
		xmlParserInputPtr in = st->ctxt->input;
		long k = off + 1 - (long)in->consumed; // the byte after '<', in the parser's buffer
		if (k >= 0 && k < (long)(in->end - in->base) && in->base[k] == '/' && st->closed_line > 0) {
			line = st->closed_line;
			col = st->closed_col;
		}
	}
	rsc_add(st->res, line, col, err->level, 0, NULL, err->message);
}

// rsc_prolog_doctype finds a DOCTYPE in the prolog of the len bytes at buf
// (the start of the document): its line and column, or 0.
static int rsc_prolog_doctype(const char *buf, long len, int *line, int *col) {
	const char *p = buf, *end = buf + len;
	int ln = 1;
	const char *linestart = buf;
	if (end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) {
		p += 3;
	}
	while (p < end) {
		if (*p == '\n') {
			ln++;
			linestart = p + 1;
			p++;
		} else if (*p == ' ' || *p == '\t' || *p == '\r') {
			p++;
		} else if (end - p >= 2 && p[0] == '<' && p[1] == '?') {
			const char *q = p + 2;
			while (q + 1 < end && !(q[0] == '?' && q[1] == '>')) {
				if (*q == '\n') {
					ln++;
					linestart = q + 1;
				}
				q++;
			}
			p = q + 2;
		} else if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
			const char *q = p + 4;
			while (q + 2 < end && !(q[0] == '-' && q[1] == '-' && q[2] == '>')) {
				if (*q == '\n') {
					ln++;
					linestart = q + 1;
				}
				q++;
			}
			p = q + 3;
		} else if (end - p >= 9 && (memcmp(p, "<!DOCTYPE", 9) == 0 || memcmp(p, "<!doctype", 9) == 0)) {
			*line = ln;
			*col = (int)(p - linestart) + 1;
			return 1;
		} else {
			return 0;
		}
	}
	return 0;
}

rsc_pass *rsc_pass_new(int events, uintptr_t schema, int max_errors) {
	rsc_pass *ps = calloc(1, sizeof *ps);
	if (ps == NULL) {
		return NULL;
	}
	__atomic_add_fetch(&rsc_live_passes, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_init(&ps->mu, NULL);
	ps->res.max = max_errors > 0 ? max_errors : 1;
	rsc_stream *st = &ps->st;
	st->ps = ps;
	st->res = &ps->res;
	st->at_line = 1;
	st->tag_cur = -1;
	st->tag_off = -1;
	st->ns.cap = 32;
	st->names.cap = 64;
	if (events) {
		st->events = &ps->evbuf;
		rsc_ev_buffer(ps, &ps->evbuf);
	}
	xmlParserCtxtPtr ctxt = xmlCreatePushParserCtxt(NULL, NULL, NULL, 0, NULL);
	if (ctxt == NULL || ctxt->sax == NULL) {
		if (ctxt != NULL) {
			xmlFreeParserCtxt(ctxt);
		}
		rsc_pass_free(ps);
		return NULL;
	}
	st->ctxt = ctxt;
	xmlCtxtUseOptions(ctxt, RSC_PARSE_OPTIONS);
	// Our handlers only: no tree, no entity declarations stored, no
	// external subset, and a stop at any DOCTYPE.
	memset(ctxt->sax, 0, sizeof *ctxt->sax);
	ctxt->sax->initialized = XML_SAX2_MAGIC;
	ctxt->sax->startElementNs = rsc_s_start;
	ctxt->sax->endElementNs = rsc_s_end;
	ctxt->sax->characters = rsc_s_chars;
	ctxt->sax->cdataBlock = rsc_s_chars;
	ctxt->sax->ignorableWhitespace = rsc_s_chars;
	ctxt->sax->internalSubset = rsc_s_doctype;
	ctxt->userData = st;
	// Without a schema the pass only parses (well-formedness and events).
	if (schema != 0) {
		ps->vctxt = xmlSchemaNewValidCtxt((xmlSchemaPtr)(void *)schema);
		if (ps->vctxt == NULL) {
			rsc_pass_free(ps);
			return NULL;
		}
		xmlSchemaSetValidStructuredErrors(ps->vctxt, rsc_s_valid_error, st);
		ps->plug = xmlSchemaSAXPlug(ps->vctxt, &ctxt->sax, &ctxt->userData);
		if (ps->plug == NULL) {
			rsc_pass_free(ps);
			return NULL;
		}
	}
	return ps;
}

int rsc_pass_push(rsc_pass *ps, const char *buf, size_t len) {
	rsc_stream *st = &ps->st;
	if (st->oom) {
		return -1;
	}
	if (ps->stopped || ps->finished) {
		return 1;
	}
	if (len == 0) {
		return 0;
	}
	if (len > INT32_MAX || (!st->root_seen && rsc_prolog_append(st, (const unsigned char *)buf, len) != 0)) {
		st->oom = 1;
		return -1;
	}
	st->feed = (const unsigned char *)buf;
	st->feed_off = ps->fed;
	st->feed_len = len;
	ps->fed += (long)len;
	int rc = 0;
	for (size_t off = 0; off < len; off += RSC_PUSH) {
		size_t k = len - off < RSC_PUSH ? len - off : RSC_PUSH;
		xmlParseChunk(st->ctxt, buf + off, (int)k, 0);
		if (st->oom) {
			rc = -1;
			break;
		}
		if (st->ctxt->disableSAX || st->ctxt->instate == XML_PARSER_EOF) {
			ps->stopped = 1; // a fatal error, or a DOCTYPE
			rc = 1;
			break;
		}
	}
	// Where rsc_locate stopped moves to the end of what was fed, as buf is
	// not kept: a tag begun in it and read with the next piece is located
	// back from there, in the parser's buffer.
	rsc_advance(st, ps->fed);
	st->feed = NULL;
	if (st->root_seen && st->prolog.p != NULL) {
		free(st->prolog.p);
		memset(&st->prolog, 0, sizeof st->prolog);
	}
	return rc;
}

int rsc_pass_take(rsc_pass *ps, unsigned char **chunk, size_t *len, size_t *cap) {
	rsc_chunk *c = ps->ready;
	if (c == NULL) {
		return 0;
	}
	pthread_mutex_lock(&ps->mu);
	if (ps->nout == ps->capout) {
		int ncap = ps->capout ? 2 * ps->capout : 16;
		unsigned char **n = realloc(ps->out, (size_t)ncap * sizeof *n);
		if (n == NULL) {
			pthread_mutex_unlock(&ps->mu);
			ps->st.oom = 1;
			return 0;
		}
		ps->out = n;
		ps->capout = ncap;
	}
	ps->out[ps->nout++] = c->p;
	pthread_mutex_unlock(&ps->mu);
	ps->ready = c->next;
	if (ps->ready == NULL) {
		ps->ready_tail = NULL;
	}
	*chunk = c->p;
	*len = c->len;
	*cap = c->cap;
	free(c);
	return 1;
}

void rsc_pass_recycle(rsc_pass *ps, unsigned char *chunk, size_t cap) {
	pthread_mutex_lock(&ps->mu);
	for (int i = 0; i < ps->nout; i++) {
		if (ps->out[i] == chunk) {
			ps->out[i] = ps->out[--ps->nout];
			break;
		}
	}
	if (cap == RSC_EV_CAP && ps->nspare < RSC_SPARE) {
		ps->spare[ps->nspare++] = chunk;
		chunk = NULL;
	}
	pthread_mutex_unlock(&ps->mu);
	free(chunk);
}

int rsc_pass_finish(rsc_pass *ps, int failed, int *wellformed, int *truncated) {
	rsc_stream *st = &ps->st;
	xmlParserCtxtPtr ctxt = st->ctxt;
	int rc = -1;
	*wellformed = 0;
	*truncated = 0;
	if (ps->finished) {
		return -1;
	}
	ps->finished = 1;
	if (st->oom) {
		goto done;
	}
	if (!ps->stopped) {
		if (failed) {
			// A read error, or the pass was cancelled: nothing is decided
			// (the Go side knows why).
			rc = 0;
			goto done;
		}
		if (ps->fed == 0) {
			rsc_add(&ps->res, 1, 0, XML_ERR_FATAL, 1, NULL, "The document is empty.");
			rc = 0;
			goto done;
		}
		xmlParseChunk(ctxt, NULL, 0, 1);
		if (st->oom) {
			goto done;
		}
	}
	int dline = 1, dcol = 0;
	// The input is kept from its start while the root is not seen: then
	// the prolog is there to look for a DOCTYPE in (one libxml2 stopped
	// at, or one it refused as malformed).
	int prolog = !st->root_seen && rsc_prolog_doctype((const char *)st->prolog.p, (long)st->prolog.len, &dline, &dcol);
	if (prolog || st->doctype || ctxt->intSubName != NULL || ctxt->hasExternalSubset) {
		rsc_clear(&ps->res);
		rsc_add(&ps->res, dline, dcol, XML_ERR_FATAL, 1, NULL,
		        "DOCTYPE is not allowed: ResourceSync documents have no document type "
		        "declaration, and rsconform refuses one outright (no entity is expanded, "
		        "no file or URL is read).");
	} else if (!ctxt->wellFormed || !st->root_seen) {
		rsc_clear(&ps->res);
		xmlErrorPtr e = xmlCtxtGetLastError(ctxt);
		// libxml2 says "Extra content at the end of the document" (its
		// XML_ERR_DOCUMENT_END) of a document that ends with elements
		// still open: the Go side words that as the Go parser does.
		*truncated = e != NULL && e->code == XML_ERR_DOCUMENT_END && st->depth > 0;
		if (e != NULL && e->message != NULL) {
			rsc_add(&ps->res, e->line, e->int2, XML_ERR_FATAL, 1, NULL, e->message);
		} else {
			rsc_add(&ps->res, 1, 0, XML_ERR_FATAL, 1, NULL, "The document is not well-formed XML.");
		}
	} else {
		*wellformed = 1;
		if (!ctxt->nsWellFormed) {
			// Namespace errors (an unbound prefix) do not stop the parse.
			xmlErrorPtr e = xmlCtxtGetLastError(ctxt);
			if (e != NULL && e->message != NULL) {
				rsc_add(&ps->res, e->line, e->int2, XML_ERR_ERROR, 1, NULL, e->message);
			}
		}
		rsc_flush(st, 1);
		if (st->oom) {
			*wellformed = 0;
			goto done;
		}
	}
	rc = 0;

done:
	return rc;
}

void rsc_pass_result(rsc_pass *ps, rsc_result *res) {
	*res = ps->res;
	memset(&ps->res, 0, sizeof ps->res);
}

void rsc_pass_free(rsc_pass *ps) {
	if (ps == NULL) {
		return;
	}
	if (ps->plug != NULL) {
		xmlSchemaSAXUnplug(ps->plug);
	}
	if (ps->vctxt != NULL) {
		xmlSchemaFreeValidCtxt(ps->vctxt);
	}
	xmlParserCtxtPtr ctxt = ps->st.ctxt;
	if (ctxt != NULL) {
		if (ctxt->myDoc != NULL) {
			xmlFreeDoc(ctxt->myDoc); // never built by our handlers; in case
		}
		xmlFreeParserCtxt(ctxt);
	}
	for (rsc_chunk *c = ps->ready; c != NULL;) {
		rsc_chunk *n = c->next;
		free(c->p);
		free(c);
		c = n;
	}
	for (int i = 0; i < ps->nout; i++) {
		free(ps->out[i]); // given to Go and not given back: Go is done with them
	}
	free(ps->out);
	for (int i = 0; i < ps->nspare; i++) {
		free(ps->spare[i]);
	}
	free(ps->evbuf.p);
	free(ps->st.prolog.p);
	free(ps->st.text.p);
	free(ps->st.leaf);
	free(ps->st.line);
	free(ps->st.col);
	rsc_result_free(&ps->res);
	pthread_mutex_destroy(&ps->mu);
	free(ps);
	__atomic_sub_fetch(&rsc_live_passes, 1, __ATOMIC_SEQ_CST);
}
