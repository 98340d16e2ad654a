// Small C layer between package schema and libxml2: an entity loader that
// serves the embedded XSDs and refuses everything else, and one function that
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

// rsc_result is filled by rsc_check; release it with rsc_result_free.
typedef struct {
	rsc_error *errors;
	int n;        // number of entries in errors
	int cap;      // allocated entries
	int max;      // at most this many are kept
	long omitted; // findings beyond max
	int parsed;   // 1 when the document was parsed into a tree
	int validated; // 1 when XML Schema validation ran
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

// rsc_check parses len bytes at buf and validates them against schema (an
// xmlSchemaPtr; 0 parses only) in one streaming pass, without building a tree. Findings go
// to res (parser findings have parse set); *wellformed says whether the
// document was well-formed (and so validated). When job is not NULL, the
// element events (see shim.c) are handed to it chunk by chunk, and its end
// is marked when the pass ends. Returns 0 when it ran, -1 when it could not
// (out of memory).
typedef struct rsc_job rsc_job;

int rsc_check(uintptr_t schema, const char *buf, int len, int max_errors, rsc_result *res,
              int *wellformed, rsc_job *job);

// rsc_job carries the element events of a pass, chunk by chunk, from
// rsc_check (which may run on another thread) to its reader.
rsc_job *rsc_job_new(void);
// rsc_job_next waits for the next chunk: 1 with a malloc'd chunk (to free
// with free()), 0 when the pass has ended and every chunk was read.
int rsc_job_next(rsc_job *job, unsigned char **chunk, size_t *len);
void rsc_job_free(rsc_job *job);

void rsc_result_free(rsc_result *res);

#endif
