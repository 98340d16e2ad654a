// Small C layer between package schema and libxml2: an entity loader that
// serves the embedded XSDs and refuses everything else, and a streaming pass that
// parses and validates a document, collecting located errors in C memory.
// Nothing here calls back into Go.
#ifndef RSCONFORM_SCHEMA_SHIM_H
#define RSCONFORM_SCHEMA_SHIM_H

#include <stddef.h>
#include <stdint.h>

// rsc_error is one finding. element and message are malloc'd (or NULL).
typedef struct {
	int line;
	int column;
	int level; // xmlErrorLevel: 1 warning, 2 error, 3 fatal
	int parse; // 1: from the XML parser; 0: from the schema validator
	char *element;
	char *message;
} rsc_error;

// rsc_result is filled by rsc_pass_run; release it with rsc_result_free.
typedef struct {
	rsc_error *errors;
	int n;        // number of entries in errors
	int cap;      // allocated entries
	int max;      // at most this many are kept
	long omitted; // findings beyond max
} rsc_result;

// rsc_init silences libxml2's generic error output and installs the entity
// loader. Call once, before any other libxml2 use, from one thread.
void rsc_init(void);

// rsc_register makes data (NUL-terminated, kept for the life of the
// process) available to the entity loader under uri.
int rsc_register(const char *uri, const char *data);

// rsc_capture_start/stop collect the structured errors libxml2 raises on
// the calling thread while our schemas are compiled (by another library),
// so that a warning such as a skipped import is noticed. rsc_capture_stop
// returns the number of diagnostics and a malloc'd text of the first ones.
void rsc_capture_start(void);
int rsc_capture_stop(char **text);

// A pass parses one document with libxml2's push parser and, given a
// schema, validates it in the same streaming pass, without building a tree.
// Three parties share it: the caller of rsc_pass_run (the parse, on its own
// thread), a feeder (rsc_pass_feed, rsc_pass_end) and a reader of the
// element events (rsc_pass_next). The input and the events go through
// bounded queues: each side waits for the other, and memory does not grow
// with the document. Nothing here calls back into Go.
typedef struct rsc_pass rsc_pass;

// rsc_pass_new returns a pass (NULL: out of memory); events says whether
// element events are wanted (see shim.c). Free it with rsc_pass_free once
// every party is done with it.
rsc_pass *rsc_pass_new(int events);

// rsc_pass_feed queues a copy of the next len bytes of the document,
// waiting while the queue is full. Returns -1 when the pass reads no more
// input (it stopped, was aborted, or memory ran out).
int rsc_pass_feed(rsc_pass *ps, const char *buf, size_t len);

// rsc_pass_end says the input has ended: failed 0 at its end, 1 on a read
// error (the pass then stops without deciding anything).
void rsc_pass_end(rsc_pass *ps, int failed);

// rsc_pass_abort stops the pass as soon as it can, as a failed input:
// queued input is dropped and further feeds are refused. Safe to call from
// any thread while the pass is alive.
void rsc_pass_abort(rsc_pass *ps);

// rsc_pass_run parses the fed document and validates it against schema (an
// xmlSchemaPtr; 0 parses only). Findings go to res (parser findings have
// parse set); *wellformed says whether the document was well-formed (and so
// validated). When it returns, the events have ended and feeds are
// refused. Returns 0 when it ran, -1 when it could not (out of memory).
int rsc_pass_run(rsc_pass *ps, uintptr_t schema, int max_errors, rsc_result *res, int *wellformed);

// rsc_pass_next waits for the next chunk of events: 1 with a malloc'd
// chunk of len bytes in a buffer of cap (to give back with
// rsc_pass_recycle, or free()), 0 when the pass has ended and every chunk
// was read.
int rsc_pass_next(rsc_pass *ps, unsigned char **chunk, size_t *len, size_t *cap);

// rsc_pass_recycle gives back a chunk rsc_pass_next returned, once read:
// the pass writes events into it again (or frees it). The pass must not
// have been freed.
void rsc_pass_recycle(rsc_pass *ps, unsigned char *chunk, size_t cap);

void rsc_pass_free(rsc_pass *ps);

// rsc_pass_live is the number of passes not yet freed.
long rsc_pass_live(void);

void rsc_result_free(rsc_result *res);

#endif
