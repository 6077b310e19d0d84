/* The run report (report.h): the model the supervisor fills as the run
 * goes. Rendering is in report_render.c, spilling denials to a file in
 * report_spill.c, the layout they share in report_impl.h.
 *
 * cw_report_count_capability is called for every decided operation, so it
 * is a hash-table update, not a list scan; sorting happens once, at render
 * time. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_impl.h"
#include "hmap.h"
#include "trace.h"

/* ---- small helpers ---- */

int cw_report_dup_str(char **dst, const char *s)
{
	char *c = NULL;

	if (s && !(c = strdup(s)))
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

static void strvec_free(struct strvec *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

/* Copy N strings (or a NULL-terminated list when N is SIZE_MAX). */
static int strvec_set(struct strvec *sv, const char *const *v, size_t n)
{
	struct strvec nv = { NULL, 0 };
	size_t i;

	if (n == SIZE_MAX)
		for (n = 0; v && v[n]; n++)
			;
	if (!v)
		n = 0;
	if (n) {
		nv.v = calloc(n, sizeof(*nv.v));
		if (!nv.v)
			return -ENOMEM;
		for (i = 0; i < n; i++, nv.n++)
			if (!(nv.v[i] = strdup(v[i] ? v[i] : ""))) {
				strvec_free(&nv);
				return -ENOMEM;
			}
	}
	strvec_free(sv);
	*sv = nv;
	return 0;
}

static int grow(void **arr, size_t *alloc, size_t n, size_t elem)
{
	size_t na;
	void *p;

	if (n < *alloc)
		return 0;
	na = *alloc ? *alloc * 2 : 16;
	if (na > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*arr, na * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*alloc = na;
	return 0;
}

/* ---- lifetime ---- */

static void head_free(struct head_cand *h)
{
	if (!h)
		return;
	free(h->program);
	free(h->syscall);
	free(h->scope);
	free(h->rule);
	free(h->reason);
	free(h);
}

cw_report *cw_report_new(void)
{
	cw_report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	/* Scopes are chosen by the target, so the map is keyed to make
	 * deliberate collisions (a slow supervisor) hard to plan. The
	 * supervisor gives a random key (cw_report_set_hash_key); until then
	 * the address of the heap object, which varies per run under ASLR
	 * and costs no syscall. */
	struct cw_hash_key k = { (uint64_t)(uintptr_t)r * 0x9e3779b97f4a7c15ULL, 0x6361707761746368ULL };
	cw_hmap_init(&r->caps, &k, 0, sizeof(uint64_t), 0);
	/* process numbers are capwatch's, not the command's: keyed all the same */
	cw_hmap_init(&r->heads, &k, sizeof(uint64_t), sizeof(struct head_cand *), 0);
	cw_hmap_init(&r->ends, &k, sizeof(uint64_t), sizeof(uint8_t), 0);
	r->spill_fd = -1;
	r->elapsed = 0;
	return r;
}

void cw_report_free(cw_report *r)
{
	size_t i;

	if (!r)
		return;
	free(r->profile);
	free(r->command);
	free(r->cwd);
	strvec_free(&r->args);
	strvec_free(&r->roots);
	free(r->backend);
	free(r->backend_reason);
	free(r->level);
	free(r->downgrade);
	strvec_free(&r->layers);
	for (i = 0; i < r->nprocs; i++) {
		free(r->procs[i].exe);
		free(r->procs[i].preload);
		strvec_free(&r->procs[i].argv);
	}
	free(r->procs);
	for (i = 0; i < r->ndens; i++) {
		struct denial_rec *d = &r->dens[i];

		free(d->program);
		free(d->syscall);
		free(d->scope);
		free(d->rule);
		free(d->reason);
		free(d->host);
		free(d->site);
		free(d->annotation_source);
		strvec_free(&d->backtrace);
	}
	free(r->dens);
	if (r->spill_fd >= 0)
		r->spill_io->close(r->spill_fd);
	free(r->sbuf);
	{
		size_t pos = 0, kl;
		const void *k;
		void *v;

		while (cw_hmap_next(&r->heads, &pos, &k, &kl, &v))
			head_free(*(struct head_cand **)v);
	}
	cw_hmap_free(&r->heads);
	cw_hmap_free(&r->ends);
	for (i = 0; i < r->nchgs; i++) {
		free(r->chgs[i].kind);
		free(r->chgs[i].path);
		free(r->chgs[i].path2);
	}
	free(r->chgs);
	for (i = 0; i < r->napps; i++) {
		free(r->apps[i].scope);
		free(r->apps[i].rule);
		free(r->apps[i].reason);
		free(r->apps[i].how);
	}
	free(r->apps);
	for (i = 0; i < r->nfds; i++) {
		free(r->fds[i].kind);
		free(r->fds[i].path);
		free(r->fds[i].mode);
	}
	free(r->fds);
	for (i = 0; i < r->nhosts; i++) {
		free(r->hosts[i].scope);
		free(r->hosts[i].host);
		free(r->hosts[i].rule);
	}
	free(r->hosts);
	cw_hmap_free(&r->caps);
	free(r->keybuf);
	free(r->state);
	free(r->kind);
	free(r);
}

/* ---- setters ---- */

int cw_report_set_run(cw_report *r, const char *profile, const char *command,
		      const char *const *args, const char *cwd,
		      const char *const *roots, size_t nroots)
{
	if (cw_report_dup_str(&r->profile, profile) || cw_report_dup_str(&r->command, command) ||
	    cw_report_dup_str(&r->cwd, cwd) || strvec_set(&r->args, args, SIZE_MAX) ||
	    strvec_set(&r->roots, roots, nroots))
		return -ENOMEM;
	return 0;
}

int cw_report_set_enforcement(cw_report *r, const struct cw_enforcement *e)
{
	free(r->backend_reason);
	r->backend_reason = NULL;
	if (e->backend_reason && cw_report_dup_str(&r->backend_reason, e->backend_reason))
		return -ENOMEM;
	if (cw_report_dup_str(&r->backend, e->backend) || cw_report_dup_str(&r->level, e->level) ||
	    cw_report_dup_str(&r->downgrade, e->downgrade_reason) ||
	    strvec_set(&r->layers, e->layers, SIZE_MAX))
		return -ENOMEM;
	r->degraded = e->degraded;
	r->has_enf = true;
	return 0;
}

int cw_report_add_process(cw_report *r, const struct cw_proc_record *p)
{
	struct proc_rec *pr;

	if (grow((void **)&r->procs, &r->aprocs, r->nprocs, sizeof(*r->procs)))
		return -ENOMEM;
	pr = &r->procs[r->nprocs];
	memset(pr, 0, sizeof(*pr));
	pr->pid = p->pid;
	pr->ppid = p->ppid;
	pr->start = p->start;
	pr->end = p->end;
	pr->exited = p->exited;
	pr->code = p->code;
	pr->signal = p->signal;
	pr->has_argv = p->argv != NULL;
	pr->argv_truncated = p->argv_truncated;
	if (cw_report_dup_str(&pr->exe, p->exe) ||
	    cw_report_dup_str(&pr->preload, p->preload ? p->preload : "unknown") ||
	    strvec_set(&pr->argv, p->argv, SIZE_MAX)) {
		free(pr->exe);
		free(pr->preload);
		strvec_free(&pr->argv);
		return -ENOMEM;
	}
	r->nprocs++;
	if (p->proc) {
		/* how the number ended: its last record says (report.h) */
		uint8_t *end;
		int e = cw_hmap_insert(&r->ends, &p->proc, sizeof(p->proc), (void **)&end);

		if (e < 0)
			return e;
		*end = p->end >= 0 && p->exited && p->code == 0 && !p->signal ? PROC_ENDED_OK
									  : PROC_ENDED_BAD;
	}
	return 0;
}

bool cw_headline_over(bool a_asks, double ta, bool b_asks, double tb)
{
	return a_asks != b_asks ? a_asks : ta >= tb;
}

/* How much a denial explains a failure (cw_headline_over): one the next
 * step of which is to ask for approval ranks first. */
static int head_rank(const struct cw_decision *d)
{
	return d->next_action == CW_NEXT_REQUEST_APPROVAL ? 1 : 0;
}

/* An enforced denial: counted for its process number, and its candidate
 * for the headline replaced when it ranks as high or higher (it is later:
 * denials are added in time order). */
static int note_head(cw_report *r, const struct cw_denial_record *dr)
{
	const struct cw_decision *dec = dr->d;
	struct head_cand **slot, *h, *n;
	int e = cw_hmap_insert(&r->heads, &dr->proc, sizeof(dr->proc), (void **)&slot);

	if (e < 0)
		return e;
	h = *slot;
	if (h && h->rank > head_rank(dec)) {
		h->count++;
		return 0;
	}
	n = calloc(1, sizeof(*n));
	if (!n || !(n->scope = strndup(dec->scope, sizeof(dec->scope))) ||
	    !(n->rule = strndup(dec->rule, sizeof(dec->rule))) ||
	    !(n->reason = strndup(dec->reason, sizeof(dec->reason))) ||
	    cw_report_dup_str(&n->program, dr->program) || cw_report_dup_str(&n->syscall, dr->syscall)) {
		head_free(n);
		if (!h)
			cw_hmap_remove(&r->heads, &dr->proc, sizeof(dr->proc));
		return -ENOMEM;
	}
	n->count = (h ? h->count : 0) + 1;
	n->pid = dr->pid;
	n->rank = head_rank(dec);
	n->time = dr->time;
	n->cap = dec->cap;
	n->verdict = dec->verdict;
	n->profile_verdict = dec->profile_verdict;
	n->source = dec->source;
	n->next_action = dec->next_action;
	n->err = dec->err;
	head_free(h);
	*slot = n;
	return 0;
}

bool cw_report_tolerated(const cw_report *r, uint64_t proc)
{
	const uint8_t *end = proc ? cw_hmap_find(&r->ends, &proc, sizeof(proc)) : NULL;

	return end && *end == PROC_ENDED_OK;
}

int cw_report_headline(cw_report *r, struct cw_decision *d, struct cw_report_headline *out)
{
	const struct head_cand *best = NULL;
	size_t pos = 0, kl;
	const void *k;
	void *v;

	memset(out, 0, sizeof(*out));
	while (cw_hmap_next(&r->heads, &pos, &k, &kl, &v)) {
		const struct head_cand *h = *(struct head_cand **)v;
		uint64_t proc;

		memcpy(&proc, k, sizeof(proc));
		out->enforced += h->count;
		if (cw_report_tolerated(r, proc)) {
			out->tolerated += h->count;
			continue;
		}
		if (!best || cw_headline_over(h->rank, h->time, best->rank, best->time))
			best = h;
	}
	r->head = best;
	if (!best)
		return 0;
	memset(d, 0, offsetof(struct cw_decision, scope));
	d->verdict = best->verdict;
	d->profile_verdict = best->profile_verdict;
	d->cap = best->cap;
	d->source = best->source;
	d->next_action = best->next_action;
	d->err = best->err;
	snprintf(d->rule, sizeof(d->rule), "%s", best->rule);
	snprintf(d->reason, sizeof(d->reason), "%s", best->reason);
	snprintf(d->scope, sizeof(d->scope), "%s", best->scope);
	out->found = true;
	out->pid = best->pid;
	out->program = best->program;
	out->syscall = best->syscall;
	return 0;
}

int cw_report_add_denial(cw_report *r, const struct cw_denial_record *dr)
{
	struct denial_rec *d;
	const struct cw_decision *dec = dr->d;

	if (!dec)
		return -EINVAL;
	if (dr->enforced) {
		int e = note_head(r, dr);

		if (e < 0)
			return e;
	}
	if (r->spill_fd != -1 && !r->spill_failed && r->ndens >= r->spill_keep) {
		int e = cw_report_spill_denial(r, dr);

		if (e != -ENOMEM)
			return e;
		/* could not render it: keep it as a record after all, and
		 * the later ones too, so that the order stays */
		r->spill_failed = true;
	}
	if (grow((void **)&r->dens, &r->adens, r->ndens, sizeof(*r->dens)))
		return -ENOMEM;
	d = &r->dens[r->ndens];
	memset(d, 0, sizeof(*d));
	d->pid = dr->pid;
	d->cap = dec->cap;
	d->verdict = dec->verdict;
	d->source = dec->source;
	d->next_action = dec->next_action;
	d->time = dr->time;
	d->enforced = dr->enforced;
	d->proc = dr->proc;
	if (!(d->scope = strndup(dec->scope, sizeof(dec->scope))) ||
	    !(d->rule = strndup(dec->rule, sizeof(dec->rule))) ||
	    !(d->reason = strndup(dec->reason, sizeof(dec->reason))) ||
	    cw_report_dup_str(&d->program, dr->program) || cw_report_dup_str(&d->syscall, dr->syscall) ||
	    cw_report_dup_str(&d->host, dr->host) || cw_report_dup_str(&d->site, dr->site) ||
	    cw_report_dup_str(&d->annotation_source, dr->annotation_source) ||
	    strvec_set(&d->backtrace, dr->backtrace, SIZE_MAX)) {
		free(d->scope);
		free(d->rule);
		free(d->reason);
		free(d->program);
		free(d->syscall);
		free(d->host);
		free(d->site);
		free(d->annotation_source);
		strvec_free(&d->backtrace);
		return -ENOMEM;
	}
	r->ndens++;
	return 0;
}

int cw_report_add_approval(cw_report *r, const struct cw_approval_record *a)
{
	struct approval_rec *p;
	const char *scope = a->scope ? a->scope : "", *rule = a->rule ? a->rule : "";
	size_t i;

	if (!a->how || a->cap < 0 || a->cap >= CW_CAP__COUNT)
		return -EINVAL;
	/* one entry per grant and scope: a loop of approved connects is one
	 * line with a count (approvals are rare; a scan is enough) */
	for (i = 0; i < r->napps; i++) {
		p = &r->apps[i];
		if (p->cap == a->cap && p->once == a->once && !strcmp(p->scope, scope) &&
		    !strcmp(p->rule, rule) && !strcmp(p->how, a->how)) {
			p->count++;
			return 0;
		}
	}
	if (grow((void **)&r->apps, &r->aapps, r->napps, sizeof(*r->apps)))
		return -ENOMEM;
	p = &r->apps[r->napps];
	memset(p, 0, sizeof(*p));
	p->cap = a->cap;
	p->once = a->once;
	p->pid = a->pid;
	p->time = a->time;
	p->count = 1;
	if (cw_report_dup_str(&p->scope, scope) || cw_report_dup_str(&p->rule, rule) ||
	    cw_report_dup_str(&p->reason, a->reason ? a->reason : "") ||
	    cw_report_dup_str(&p->how, a->how)) {
		free(p->scope);
		free(p->rule);
		free(p->reason);
		free(p->how);
		return -ENOMEM;
	}
	r->napps++;
	return 0;
}

int cw_report_add_inherited_fd(cw_report *r, int fd, const char *kind, const char *path,
				const char *mode, bool passed)
{
	if (!kind || !path || !mode || fd < 0)
		return -EINVAL;
	if (grow((void **)&r->fds, &r->afds, r->nfds, sizeof(*r->fds)))
		return -ENOMEM;
	struct fd_rec *f = &r->fds[r->nfds];
	memset(f, 0, sizeof(*f));
	f->fd = fd;
	f->passed = passed;
	if (cw_report_dup_str(&f->kind, kind) || cw_report_dup_str(&f->path, path) ||
	    cw_report_dup_str(&f->mode, mode)) {
		free(f->kind);
		free(f->path);
		free(f->mode);
		return -ENOMEM;
	}
	r->nfds++;
	return 0;
}

int cw_report_add_host_match(cw_report *r, cw_cap_kind cap, const char *scope, const char *host,
			     const char *rule, cw_verdict v)
{
	struct host_rec *h;
	size_t i;

	if (!scope || !host || !rule || cap < 0 || cap >= CW_CAP__COUNT)
		return -EINVAL;
	for (i = 0; i < r->nhosts; i++) {
		h = &r->hosts[i];
		if (h->cap == cap && h->verdict == v && !strcmp(h->scope, scope) &&
		    !strcmp(h->host, host) && !strcmp(h->rule, rule)) {
			h->count++;
			return 0;
		}
	}
	if (grow((void **)&r->hosts, &r->ahosts, r->nhosts, sizeof(*r->hosts)))
		return -ENOMEM;
	h = &r->hosts[r->nhosts];
	memset(h, 0, sizeof(*h));
	h->cap = cap;
	h->verdict = v;
	h->count = 1;
	if (cw_report_dup_str(&h->scope, scope) || cw_report_dup_str(&h->host, host) ||
	    cw_report_dup_str(&h->rule, rule)) {
		free(h->scope);
		free(h->host);
		free(h->rule);
		return -ENOMEM;
	}
	r->nhosts++;
	return 0;
}

int cw_report_add_change(cw_report *r, const char *kind, const char *path, const char *path2)
{
	struct change_rec *c;

	if (!kind || !path)
		return -EINVAL;
	if (grow((void **)&r->chgs, &r->achgs, r->nchgs, sizeof(*r->chgs)))
		return -ENOMEM;
	c = &r->chgs[r->nchgs];
	memset(c, 0, sizeof(*c));
	if (cw_report_dup_str(&c->kind, kind) || cw_report_dup_str(&c->path, path) ||
	    cw_report_dup_str(&c->path2, path2)) {
		free(c->kind);
		free(c->path);
		free(c->path2);
		return -ENOMEM;
	}
	r->nchgs++;
	return 0;
}

void cw_report_set_changes_omitted(cw_report *r, uint64_t n)
{
	r->chgs_omitted = n;
}

int cw_report_set_hash_key(cw_report *r, const struct cw_hash_key *key)
{
	if (cw_hmap_count(&r->caps))
		return -EBUSY;
	r->caps.key = *key;
	/* the process numbers' maps keep the key they started with once
	 * used: capwatch chooses those keys, not the command */
	if (!cw_hmap_count(&r->heads))
		r->heads.key = *key;
	if (!cw_hmap_count(&r->ends))
		r->ends.key = *key;
	return 0;
}

int cw_report_count_capability(cw_report *r, cw_cap_kind cap, const char *scope, cw_verdict v)
{
	size_t n;
	uint64_t *count;
	int e;

	/* operations that need no capability (pseudo-devices, scratch) are
	 * not capability uses */
	if (cap < 0 || cap >= CW_CAP__COUNT)
		return cap == CW_CAP_NONE ? 0 : -EINVAL;
	if (!scope)
		scope = "";
	n = strlen(scope);
	if (n + CAP_KEY_PREFIX + 1 > r->keycap) {
		size_t nc = n + CAP_KEY_PREFIX + 1 + 256;
		char *nb = realloc(r->keybuf, nc);

		if (!nb)
			return -ENOMEM;
		r->keybuf = nb;
		r->keycap = nc;
	}
	r->keybuf[0] = (char)cap;
	r->keybuf[1] = (char)v;
	memcpy(r->keybuf + CAP_KEY_PREFIX, scope, n + 1);
	e = cw_hmap_insert(&r->caps, r->keybuf, n + CAP_KEY_PREFIX + 1, (void **)&count);
	if (e < 0)
		return e;
	(*count)++;
	return 0;
}

int cw_report_set_outcome(cw_report *r, const char *state, const char *kind,
			  bool has_exit, int code, int signal,
			  const struct cw_decision *denial)
{
	if (!state || !kind)
		return -EINVAL;
	if (cw_report_dup_str(&r->state, state) || cw_report_dup_str(&r->kind, kind))
		return -ENOMEM;
	r->has_outcome = true;
	r->has_exit = has_exit;
	r->code = code;
	r->signal = signal;
	r->has_denial = denial != NULL;
	if (denial)
		r->denial = *denial;
	return 0;
}

void cw_report_set_stats(cw_report *r, uint64_t events, uint64_t notifications, double elapsed)
{
	r->events = events;
	r->notifications = notifications;
	r->elapsed = elapsed;
}

void cw_report_set_colocation(cw_report *r, const struct cw_report_colocation *c)
{
	r->colocation = *c;
	r->has_colocation = true;
}

void cw_report_set_ingress(cw_report *r, const struct cw_report_ingress *g)
{
	r->ingress = *g;
	r->has_ingress = true;
}

void cw_report_set_annotations(cw_report *r, const struct cw_report_annotations *a)
{
	r->annotations = *a;
	r->has_annotations = true;
}
