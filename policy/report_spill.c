/* The run report (report.h): denials past the first KEEP go to an unlinked
 * file as ready-made JSON fragments (report_impl.h says how they are laid
 * out), so that the heap stays bounded however many denials a run has.
 * report_render.c reads them back. */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_impl.h"

/* Write SBUF to the spill file. On failure what was not written stays in
 * SBUF (rendered from there) and spilling stops. */
static int spill_flush(cw_report *r)
{
	size_t done;
	int e;

	if (r->spill_fd < 0 || !r->slen)
		return 0;
	e = r->spill_io->write(r->spill_fd, r->sbuf, r->slen, &done);
	r->spill_len += (off_t)done;
	memmove(r->sbuf, r->sbuf + done, r->slen - done);
	r->slen -= done;
	if (e < 0)
		r->spill_failed = true;
	return e;
}

int cw_report_set_spill(cw_report *r, int fd, size_t keep, const struct cw_report_io *io)
{
	if ((fd < 0 && fd != CW_REPORT_SPILL_DISCARD) || (fd >= 0 && !io))
		return -EINVAL;
	if (r->spill_fd >= 0 || r->spilling)
		return -EBUSY;
	if (fd >= 0 && !(r->sbuf = malloc(CW_REPORT_SPILL_BUF)))
		return -ENOMEM;
	r->spill_fd = fd;
	r->spill_io = io;
	r->spill_keep = keep;
	return 0;
}

uint64_t cw_report_denial_count(const cw_report *r)
{
	return r->ndens + r->nspilled;
}

static void bounded(char *dst, const char *src, size_t n)
{
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A denial past the first KEEP: rendered now, appended to the file. */
int cw_report_spill_denial(cw_report *r, const struct cw_denial_record *dr)
{
	const struct cw_decision *dec = dr->d;
	char scope[CW_SCOPE_MAX + 1], rule[CW_RULE_MAX + 1], reason[CW_REASON_MAX + 1];
	struct denial_rec v;
	size_t n = 0;
	char *frag, *np;

	if (!r->spilling) {
		r->spilling = true;
		r->spill_at = r->ndens;
	}
	bounded(scope, dec->scope, sizeof(dec->scope));
	bounded(rule, dec->rule, sizeof(dec->rule));
	bounded(reason, dec->reason, sizeof(dec->reason));
	if (r->spill_fd == CW_REPORT_SPILL_DISCARD) {
		r->nspilled++;
		return 0;
	}
	/* A view of the caller's record: nothing here is copied or freed. */
	memset(&v, 0, sizeof(v));
	v.pid = dr->pid;
	v.program = (char *)dr->program;
	v.syscall = (char *)dr->syscall;
	v.scope = scope;
	v.rule = rule;
	v.reason = reason;
	v.host = (char *)dr->host;
	v.site = (char *)dr->site;
	v.annotation_source = (char *)dr->annotation_source;
	while (dr->backtrace && dr->backtrace[n])
		n++;
	v.backtrace.v = (char **)dr->backtrace;
	v.backtrace.n = n;
	v.cap = dec->cap;
	v.verdict = dec->verdict;
	v.source = dec->source;
	v.next_action = dec->next_action;
	v.time = dr->time;
	v.enforced = dr->enforced;
	frag = cw_report_denial_fragment(&v);
	if (!frag)
		return -ENOMEM;
	/* the process number first, as SPILL_HDR hex digits: rendering says
	 * from it whether the denial was tolerated */
	n = SPILL_HDR + strlen(frag) + 1; /* with its NUL */
	if (r->slen + n > CW_REPORT_SPILL_BUF)
		spill_flush(r);
	if (r->slen + n > CW_REPORT_SPILL_BUF) {
		/* a fragment larger than the buffer, or a failed flush: the
		 * buffer grows (and is rendered from memory) */
		np = realloc(r->sbuf, r->slen + n);
		if (!np) {
			free(frag);
			return -ENOMEM;
		}
		r->sbuf = np;
	}
	snprintf(r->sbuf + r->slen, SPILL_HDR + 1, "%016llx", (unsigned long long)dr->proc);
	memcpy(r->sbuf + r->slen + SPILL_HDR, frag, n - SPILL_HDR);
	r->slen += n;
	r->nspilled++;
	free(frag);
	if (r->slen >= CW_REPORT_SPILL_BUF && !r->spill_failed)
		spill_flush(r);
	return 0;
}
