// See shim.h. Everything here runs on the calling thread and keeps its state
// in the call's own structures, except the registry of embedded schemas and
// the start-up capture buffer, both written once during start-up.

#include "shim.h"

#include <stdio.h>
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

// ---- one document ----

typedef struct {
	const void *node;
	long line;
} rsc_bigline;

typedef struct {
	rsc_result *res;
	int doctype;
	int doctype_line;
	int doctype_col;
	// Lines of elements that start at line 65535 or later: libxml2 2.9
	// keeps element lines in an unsigned short.
	rsc_bigline *big;
	size_t nbig, capbig;
	// Byte offset of the '<' of every element, in document order (the
	// order of the start-element callbacks and of a pre-order tree walk).
	long *offs;
	size_t noffs, capoffs;
	int oom; // an allocation failed: offsets are incomplete
} rsc_state;

// rsc_start_element records the line where each start tag BEGINS (libxml2
// records the line where it ends, as that is where the parser is when the
// callback runs), so that multi-line start tags are reported where they
// start, and keeps lines beyond 65535.
static void rsc_start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                              const xmlChar *URI, int nb_namespaces,
                              const xmlChar **namespaces, int nb_attributes,
                              int nb_defaulted, const xmlChar **attributes) {
	xmlParserCtxtPtr ctxt = ctx;
	xmlNodePtr parent = ctxt->node;
	xmlSAX2StartElementNs(ctx, localname, prefix, URI, nb_namespaces, namespaces,
	                      nb_attributes, nb_defaulted, attributes);
	xmlNodePtr node = ctxt->node;
	rsc_state *st = ctxt->_private;
	if (node == NULL || node == parent || st == NULL || ctxt->input == NULL) {
		return;
	}
	long line = ctxt->input->line;
	// The parser stands on the '>' or '/>' of the tag; walk back to its
	// '<' ('<' cannot occur inside a tag) counting line feeds.
	const xmlChar *base = ctxt->input->base, *p = ctxt->input->cur;
	long back = 0;
	int found = 0;
	while (base != NULL && p != NULL && p > base) {
		p--;
		if (*p == '<') {
			found = 1;
			break;
		}
		if (*p == '\n') {
			back++;
		}
	}
	if (found) {
		line -= back;
	}
	if (st->noffs == st->capoffs) {
		size_t ncap = st->capoffs ? st->capoffs * 2 : 4096;
		long *o = realloc(st->offs, ncap * sizeof *o);
		if (o == NULL) {
			st->oom = 1;
		} else {
			st->offs = o;
			st->capoffs = ncap;
		}
	}
	if (st->noffs < st->capoffs) {
		st->offs[st->noffs++] = found ? (long)ctxt->input->consumed + (long)(p - base) : -1;
	}
	if (line < 65535) {
		node->line = (unsigned short)line;
		return;
	}
	node->line = 65535;
	if (st->nbig == st->capbig) {
		size_t ncap = st->capbig ? st->capbig * 2 : 1024;
		rsc_bigline *b = realloc(st->big, ncap * sizeof *b);
		if (b == NULL) {
			return; // the line falls back to xmlGetLineNo
		}
		st->big = b;
		st->capbig = ncap;
	}
	st->big[st->nbig].node = node;
	st->big[st->nbig].line = line;
	st->nbig++;
}

static int rsc_cmp_bigline(const void *a, const void *b) {
	const rsc_bigline *x = a, *y = b;
	return (x->node > y->node) - (x->node < y->node);
}

static long rsc_node_line(rsc_state *st, xmlNodePtr node) {
	if (node->line != 65535) {
		return node->line;
	}
	rsc_bigline key = {node, 0};
	rsc_bigline *hit = bsearch(&key, st->big, st->nbig, sizeof key, rsc_cmp_bigline);
	if (hit != NULL) {
		return hit->line;
	}
	return xmlGetLineNo(node);
}

// rsc_tag_start finds where the markup beginning with open (e.g. "<!DOCTYPE")
// that the parser is inside of starts: its line and its byte column (0 when
// the start of its line is no longer in the buffer). Falls back to the
// parser's position.
static void rsc_tag_start(xmlParserInputPtr in, const char *open, int *line, int *col) {
	*line = in->line;
	*col = in->col;
	size_t olen = strlen(open);
	const xmlChar *base = in->base, *p = in->cur;
	int back = 0;
	while (base != NULL && p != NULL && p > base) {
		p--;
		if (*p == '\n') {
			back++;
		} else if (*p == '<' && (size_t)(in->end - p) >= olen && memcmp(p, open, olen) == 0) {
			*line = in->line - back;
			const xmlChar *q = p;
			while (q > base && q[-1] != '\n') {
				q--;
			}
			*col = (q > base || *line == 1) ? (int)(p - q) + 1 : 0;
			return;
		}
	}
}

// rsc_internal_subset stops the parser at a DOCTYPE, before any of its
// internal subset (entity declarations) is read.
static void rsc_internal_subset(void *ctx, const xmlChar *name, const xmlChar *ExternalID,
                                const xmlChar *SystemID) {
	(void)name;
	(void)ExternalID;
	(void)SystemID;
	xmlParserCtxtPtr ctxt = ctx;
	rsc_state *st = ctxt->_private;
	if (st != NULL) {
		st->doctype = 1;
		if (ctxt->input != NULL) {
			rsc_tag_start(ctxt->input, "<!DOCTYPE", &st->doctype_line, &st->doctype_col);
		}
	}
	xmlStopParser(ctxt);
}

static void rsc_parse_error(void *ud, xmlErrorPtr err) {
	xmlParserCtxtPtr ctxt = ud;
	rsc_state *st = ctxt != NULL ? ctxt->_private : NULL;
	if (st == NULL || err == NULL || st->doctype || err->level < XML_ERR_ERROR) {
		return;
	}
	rsc_add(st->res, err->line, err->int2, err->level, 1, NULL, err->message);
}

static void rsc_valid_error(void *ud, xmlErrorPtr err) {
	rsc_state *st = ud;
	if (st == NULL || err == NULL) {
		return;
	}
	xmlNodePtr node = err->node;
	if (node != NULL && node->type == XML_ATTRIBUTE_NODE) {
		node = node->parent;
	}
	long line = err->line;
	const char *element = NULL;
	if (node != NULL && node->type == XML_ELEMENT_NODE) {
		element = (const char *)node->name;
		line = rsc_node_line(st, node);
	}
	if (line < 0 || line > 0x7fffffff) {
		line = 0;
	}
	rsc_add(st->res, (int)line, 0, err->level, 0, element, err->message);
}

// rsc_check_root reports a root element other than the two Sitemap roots.
// rs.xsd's global rs:md and rs:ln would otherwise be accepted as roots.
static int rsc_check_root(rsc_state *st, xmlDocPtr doc) {
	xmlNodePtr root = xmlDocGetRootElement(doc);
	if (root == NULL) {
		rsc_add(st->res, 1, 0, XML_ERR_FATAL, 1, NULL, "The document has no root element.");
		return 0;
	}
	const xmlChar *ns = root->ns != NULL ? root->ns->href : NULL;
	if (ns != NULL && xmlStrEqual(ns, BAD_CAST RSC_SITEMAP_NS) &&
	    (xmlStrEqual(root->name, BAD_CAST "urlset") ||
	     xmlStrEqual(root->name, BAD_CAST "sitemapindex"))) {
		return 1;
	}
	char msg[RSC_MSG_CAP + 512];
	char name[RSC_NAME_CAP + 1];
	snprintf(name, sizeof name, "%s", (const char *)root->name);
	if (ns != NULL) {
		char nsbuf[RSC_NAME_CAP + 1];
		snprintf(nsbuf, sizeof nsbuf, "%s", (const char *)ns);
		snprintf(msg, sizeof msg,
		         "Element '{%s}%s': This element is not expected as the document root. "
		         "Expected is ( urlset or sitemapindex ) in the namespace " RSC_SITEMAP_NS ".",
		         nsbuf, name);
	} else {
		snprintf(msg, sizeof msg,
		         "Element '%s': This element is not expected as the document root: it is in no "
		         "namespace. Expected is ( urlset or sitemapindex ) in the namespace " RSC_SITEMAP_NS
		         ".",
		         name);
	}
	rsc_add(st->res, (int)rsc_node_line(st, root), 0, XML_ERR_ERROR, 0,
	        (const char *)root->name, msg);
	return 0;
}

// ---- event buffer ----

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

static void rsc_put_u32(rsc_buf *b, uint32_t v) {
	rsc_grow(b, 4);
	if (b->oom) {
		return;
	}
	b->p[b->len++] = v & 0xff;
	b->p[b->len++] = (v >> 8) & 0xff;
	b->p[b->len++] = (v >> 16) & 0xff;
	b->p[b->len++] = (v >> 24) & 0xff;
}

static void rsc_put_byte(rsc_buf *b, unsigned char c) {
	rsc_grow(b, 1);
	if (!b->oom) {
		b->p[b->len++] = c;
	}
}

static void rsc_put_str(rsc_buf *b, const xmlChar *s) {
	size_t n = s ? strlen((const char *)s) : 0;
	rsc_put_u32(b, (uint32_t)n);
	rsc_grow(b, n);
	if (!b->oom && n) {
		memcpy(b->p + b->len, s, n);
		b->len += n;
	}
}

// rsc_put_text writes the concatenated text and CDATA children of node.
static void rsc_put_text(rsc_buf *b, xmlNodePtr node) {
	size_t n = 0;
	for (xmlNodePtr c = node->children; c != NULL; c = c->next) {
		if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
			n += strlen((const char *)c->content);
		}
	}
	rsc_put_u32(b, (uint32_t)n);
	rsc_grow(b, n);
	if (b->oom) {
		return;
	}
	for (xmlNodePtr c = node->children; c != NULL; c = c->next) {
		if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
			size_t k = strlen((const char *)c->content);
			memcpy(b->p + b->len, c->content, k);
			b->len += k;
		}
	}
}

// rsc_walk writes the element events of the tree in document order:
//   'S' u32 offset, str ns, str local, u32 nattrs, nattrs x (str ns, str local, str value)
//   'T' str text   (only for elements without element children)
//   'E'
// where str is a u32 length and that many bytes.
static void rsc_walk(rsc_state *st, xmlNodePtr root, rsc_buf *b) {
	size_t idx = 0;
	xmlNodePtr n = root;
	while (n != NULL && !b->oom) {
		if (n->type == XML_ELEMENT_NODE) {
			long off = idx < st->noffs ? st->offs[idx] : -1;
			idx++;
			rsc_put_byte(b, 'S');
			rsc_put_u32(b, off < 0 ? 0xffffffffu : (uint32_t)off);
			rsc_put_str(b, n->ns ? n->ns->href : NULL);
			rsc_put_str(b, n->name);
			uint32_t na = 0;
			for (xmlAttrPtr a = n->properties; a != NULL; a = a->next) {
				na++;
			}
			rsc_put_u32(b, na);
			for (xmlAttrPtr a = n->properties; a != NULL; a = a->next) {
				rsc_put_str(b, a->ns ? a->ns->href : NULL);
				rsc_put_str(b, a->name);
				rsc_put_text(b, (xmlNodePtr)a);
			}
			int elemChildren = 0;
			for (xmlNodePtr c = n->children; c != NULL; c = c->next) {
				if (c->type == XML_ELEMENT_NODE) {
					elemChildren = 1;
					break;
				}
			}
			if (!elemChildren) {
				if (n->children != NULL) {
					rsc_put_byte(b, 'T');
					rsc_put_text(b, n);
				}
				rsc_put_byte(b, 'E');
			} else {
				n = n->children;
				continue;
			}
		}
		// next in document order: a sibling, or up until an ancestor has one
		while (n != NULL && n != root && n->next == NULL) {
			n = n->parent;
			if (n != NULL && n->type == XML_ELEMENT_NODE) {
				rsc_put_byte(b, 'E');
			}
		}
		if (n == NULL || n == root) {
			break;
		}
		n = n->next;
	}
}

// ---- one document, in two steps ----

struct rsc_doc {
	xmlDocPtr doc;
	rsc_state st;
	int root_ok;
};

int rsc_parse(const char *buf, int len, int max_errors, rsc_result *res, rsc_doc **out,
              unsigned char **events, size_t *nevents) {
	memset(res, 0, sizeof *res);
	res->max = max_errors > 0 ? max_errors : 1;
	*out = NULL;
	if (events != NULL) {
		*events = NULL;
		*nevents = 0;
	}
	rsc_doc *d = calloc(1, sizeof *d);
	if (d == NULL) {
		return -1;
	}
	d->st.res = res;
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	if (ctxt == NULL || ctxt->sax == NULL) {
		if (ctxt != NULL) {
			xmlFreeParserCtxt(ctxt);
		}
		free(d);
		return -1;
	}
	ctxt->_private = &d->st;
	ctxt->sax->serror = rsc_parse_error;
	ctxt->sax->startElementNs = rsc_start_element;
	ctxt->sax->internalSubset = rsc_internal_subset;
	ctxt->sax->externalSubset = NULL;
	d->doc = xmlCtxtReadMemory(ctxt, buf, len, NULL, NULL, RSC_PARSE_OPTIONS);
	xmlFreeParserCtxt(ctxt);

	if (d->st.doctype || (d->doc != NULL && (d->doc->intSubset != NULL || d->doc->extSubset != NULL))) {
		rsc_clear(res);
		rsc_add(res, d->st.doctype_line, d->st.doctype_col, XML_ERR_FATAL, 1, NULL,
		        "DOCTYPE is not allowed: ResourceSync documents have no document type "
		        "declaration, and rsconform refuses one outright (no entity is expanded, "
		        "no file or URL is read).");
		rsc_doc_free(d);
		return 0;
	}
	if (d->doc == NULL) {
		if (res->n == 0 && res->omitted == 0) {
			rsc_add(res, 1, 0, XML_ERR_FATAL, 1, NULL, "The document is not well-formed XML.");
		}
		rsc_doc_free(d);
		return 0;
	}
	res->parsed = 1;
	if (d->st.nbig > 1) {
		qsort(d->st.big, d->st.nbig, sizeof *d->st.big, rsc_cmp_bigline);
	}
	xmlNodePtr root = xmlDocGetRootElement(d->doc);
	if (events != NULL && root != NULL && !d->st.oom) {
		rsc_buf b = {0};
		rsc_walk(&d->st, root, &b);
		if (b.oom) {
			free(b.p);
			rsc_doc_free(d);
			return -1;
		}
		*events = b.p;
		*nevents = b.len;
	}
	d->root_ok = rsc_check_root(&d->st, d->doc);
	*out = d;
	return 0;
}

int rsc_doc_validate(uintptr_t schema, rsc_doc *d, int max_errors, rsc_result *res) {
	memset(res, 0, sizeof *res);
	res->max = max_errors > 0 ? max_errors : 1;
	if (!d->root_ok) {
		return 0;
	}
	rsc_result *prev = d->st.res;
	d->st.res = res;
	xmlSchemaValidCtxtPtr vctxt = xmlSchemaNewValidCtxt((xmlSchemaPtr)(void *)schema);
	if (vctxt == NULL) {
		d->st.res = prev;
		return -1;
	}
	xmlSchemaSetValidStructuredErrors(vctxt, rsc_valid_error, &d->st);
	int v = xmlSchemaValidateDoc(vctxt, d->doc);
	xmlSchemaFreeValidCtxt(vctxt);
	d->st.res = prev;
	if (v < 0 && res->n == 0 && res->omitted == 0) {
		rsc_result_free(res);
		return -1;
	}
	res->validated = 1;
	return 0;
}

void rsc_doc_free(rsc_doc *d) {
	if (d == NULL) {
		return;
	}
	if (d->doc != NULL) {
		xmlFreeDoc(d->doc);
	}
	free(d->st.big);
	free(d->st.offs);
	free(d);
}

int rsc_validate(uintptr_t schema, const char *buf, int len, int max_errors, rsc_result *res) {
	rsc_doc *d = NULL;
	if (rsc_parse(buf, len, max_errors, res, &d, NULL, NULL) != 0) {
		return -1;
	}
	if (d == NULL) {
		return 0;
	}
	rsc_result vres;
	int rc = rsc_doc_validate(schema, d, max_errors, &vres);
	rsc_doc_free(d);
	if (rc != 0) {
		rsc_result_free(res);
		return -1;
	}
	// Append the validation findings to the parse findings, within the cap.
	for (int k = 0; k < vres.n; k++) {
		rsc_error *e = &vres.errors[k];
		rsc_add(res, e->line, e->column, e->level, 0, e->element, e->message);
	}
	res->omitted += vres.omitted;
	res->validated = vres.validated;
	rsc_result_free(&vres);
	return 0;
}
