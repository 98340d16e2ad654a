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

int rsc_validate(uintptr_t schema, const char *buf, int len, int max_errors, rsc_result *res) {
	memset(res, 0, sizeof *res);
	res->max = max_errors > 0 ? max_errors : 1;
	rsc_state st;
	memset(&st, 0, sizeof st);
	st.res = res;

	int rc = -1;
	xmlParserCtxtPtr ctxt = NULL;
	xmlDocPtr doc = NULL;
	xmlSchemaValidCtxtPtr vctxt = NULL;

	ctxt = xmlNewParserCtxt();
	if (ctxt == NULL || ctxt->sax == NULL) {
		goto done;
	}
	// ctxt->sax is the context's own copy of the SAX2 handlers.
	ctxt->_private = &st;
	ctxt->sax->serror = rsc_parse_error;
	ctxt->sax->startElementNs = rsc_start_element;
	ctxt->sax->internalSubset = rsc_internal_subset;
	ctxt->sax->externalSubset = NULL;
	doc = xmlCtxtReadMemory(ctxt, buf, len, NULL, NULL, RSC_PARSE_OPTIONS);

	if (st.doctype || (doc != NULL && (doc->intSubset != NULL || doc->extSubset != NULL))) {
		rsc_clear(res);
		rsc_add(res, st.doctype_line, st.doctype_col, XML_ERR_FATAL, 1, NULL,
		        "DOCTYPE is not allowed: ResourceSync documents have no document type "
		        "declaration, and rsconform refuses one outright (no entity is expanded, "
		        "no file or URL is read).");
		rc = 0;
		goto done;
	}
	if (doc == NULL) {
		if (res->n == 0 && res->omitted == 0) {
			rsc_add(res, 1, 0, XML_ERR_FATAL, 1, NULL, "The document is not well-formed XML.");
		}
		rc = 0;
		goto done;
	}
	res->parsed = 1;
	if (st.nbig > 1) {
		qsort(st.big, st.nbig, sizeof *st.big, rsc_cmp_bigline);
	}
	if (!rsc_check_root(&st, doc)) {
		rc = 0;
		goto done;
	}

	vctxt = xmlSchemaNewValidCtxt((xmlSchemaPtr)(void *)schema);
	if (vctxt == NULL) {
		goto done;
	}
	xmlSchemaSetValidStructuredErrors(vctxt, rsc_valid_error, &st);
	int v = xmlSchemaValidateDoc(vctxt, doc);
	if (v < 0 && res->n == 0 && res->omitted == 0) {
		goto done; // internal error, nothing to show for it
	}
	res->validated = 1;
	rc = 0;

done:
	if (vctxt != NULL) {
		xmlSchemaFreeValidCtxt(vctxt);
	}
	if (doc != NULL) {
		xmlFreeDoc(doc);
	}
	if (ctxt != NULL) {
		xmlFreeParserCtxt(ctxt);
	}
	free(st.big);
	if (rc != 0) {
		rsc_result_free(res);
	}
	return rc;
}
