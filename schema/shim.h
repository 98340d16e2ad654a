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

// rsc_result is filled by rsc_pass_result; release it with rsc_result_free.
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
// One goroutine drives it: rsc_pass_push parses the next chunk of the
// document on the calling thread, rsc_pass_take hands over the element
// events the pushes completed, rsc_pass_finish ends it. Only
// rsc_pass_recycle may be called from another thread, concurrently.
// Nothing here waits or calls back into Go.
typedef struct rsc_pass rsc_pass;

// rsc_pass_new returns a pass over a document to come (NULL: out of
// memory), validating against schema (an xmlSchemaPtr; 0 parses only),
// keeping at most max_errors findings; events says whether element events
// are wanted (see shim.c). Free it with rsc_pass_free.
rsc_pass *rsc_pass_new(int events, uintptr_t schema, int max_errors);

// rsc_pass_push parses the next len bytes of the document (not kept after
// the call). Returns 0 when the pass wants more, 1 when it has stopped (a
// fatal error or a DOCTYPE: the rest of the input is not parsed), -1 when
// memory ran out.
int rsc_pass_push(rsc_pass *ps, const char *buf, size_t len);

// rsc_pass_take hands over the next buffer of events the pushes (and
// rsc_pass_finish) completed: 1 with chunk, holding len bytes in a buffer
// of cap, to give back with rsc_pass_recycle once read (or leave to
// rsc_pass_free); 0 when there is none now.
int rsc_pass_take(rsc_pass *ps, unsigned char **chunk, size_t *len, size_t *cap);

// rsc_pass_recycle gives back a chunk rsc_pass_take handed over, for the
// pass to write events into again (or free).
void rsc_pass_recycle(rsc_pass *ps, unsigned char *chunk, size_t cap);

// rsc_pass_finish ends the pass: failed 0 at the end of the input (the
// parse is completed and decided), 1 after a read error or a cancel
// (nothing is decided). It says whether the document was well-formed (and
// so validated), and whether it is not because it ended with elements
// still open (truncated); the last events are then to take. Returns 0 when
// it ran, -1 when it could not (out of memory).
int rsc_pass_finish(rsc_pass *ps, int failed, int *wellformed, int *truncated);

// rsc_pass_result moves the findings of a finished pass to res (parser
// findings have parse set); release them with rsc_result_free. Findings
// not moved out are freed with the pass.
void rsc_pass_result(rsc_pass *ps, rsc_result *res);

// rsc_pass_free frees the pass, with any event buffer not given back.
void rsc_pass_free(rsc_pass *ps);

// rsc_pass_live is the number of passes not yet freed.
long rsc_pass_live(void);

void rsc_result_free(rsc_result *res);

#endif
