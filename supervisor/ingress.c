/* The ingress guard's loader (ingress.h). The program and its maps are
 * compiled by clang into supervisor/bpf/ingress.bpf.o and embedded by
 * bpftool's skeleton; libbpf loads them. */
#include "config.h"

#include "supervisor/ingress.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_BPF

#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "supervisor/bpf/ingress.skel.h" /* built: bpftool gen skeleton */

struct cw_ingress {
	struct cw_ingress_skel *skel;
	struct bpf_link *link;
	int marked_fd, counts_fd;
	atomic_ulong marked;
};

/* libbpf's own messages (the verifier's log among them) are dropped: a
 * kernel that refuses the program is said once, by the caller, in one
 * line, and the report says the run is degraded. */
static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int cw_ingress_attach(const char *cg_dir, struct cw_ingress **out, char *why, size_t n)
{
	*out = NULL;
	libbpf_set_print(quiet_print);
	struct cw_ingress *g = calloc(1, sizeof(*g));
	if (!g) {
		snprintf(why, n, "out of memory");
		return -ENOMEM;
	}
	g->marked_fd = g->counts_fd = -1;
	int r;
	int cg = open(cg_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg < 0) {
		r = -errno;
		snprintf(why, n, "cannot open the run's cgroup: %s", strerror(-r));
		goto fail;
	}
	g->skel = cw_ingress_skel__open_and_load();
	if (!g->skel) {
		r = errno ? -errno : -EINVAL;
		snprintf(why, n, "the kernel refused the BPF program: %s", strerror(-r));
		close(cg);
		goto fail;
	}
	g->link = bpf_program__attach_cgroup(g->skel->progs.cw_ingress, cg);
	r = libbpf_get_error(g->link);
	close(cg);
	if (r) {
		g->link = NULL;
		r = r < 0 ? r : -r;
		snprintf(why, n, "cannot attach the BPF program to the run's cgroup: %s", strerror(-r));
		goto fail;
	}
	g->marked_fd = bpf_map__fd(g->skel->maps.marked);
	g->counts_fd = bpf_map__fd(g->skel->maps.counts);
	*out = g;
	return 0;
fail:
	cw_ingress_free(g);
	return r;
}

int cw_ingress_mark(struct cw_ingress *g, int sock)
{
	if (!g || sock < 0)
		return 0;
	uint32_t one = 1;
	if (bpf_map_update_elem(g->marked_fd, &sock, &one, BPF_ANY) < 0)
		return -errno;
	atomic_fetch_add(&g->marked, 1);
	return 0;
}

bool cw_ingress_counts(struct cw_ingress *g, struct cw_ingress_counts *c)
{
	memset(c, 0, sizeof(*c));
	if (!g)
		return false;
	uint32_t k = 0;
	uint64_t v = 0;
	if (bpf_map_lookup_elem(g->counts_fd, &k, &v) == 0)
		c->dropped = v;
	c->marked = atomic_load(&g->marked);
	return true;
}

void cw_ingress_free(struct cw_ingress *g)
{
	if (!g)
		return;
	if (g->link)
		bpf_link__destroy(g->link);
	if (g->skel)
		cw_ingress_skel__destroy(g->skel);
	free(g);
}

#else /* !HAVE_BPF */

int cw_ingress_attach(const char *cg_dir, struct cw_ingress **out, char *why, size_t n)
{
	(void)cg_dir;
	*out = NULL;
	snprintf(why, n, "capwatch was built without BPF (libbpf-dev, clang, bpftool)");
	return -ENOSYS;
}

int cw_ingress_mark(struct cw_ingress *g, int sock)
{
	(void)g;
	(void)sock;
	return 0;
}

bool cw_ingress_counts(struct cw_ingress *g, struct cw_ingress_counts *c)
{
	(void)g;
	memset(c, 0, sizeof(*c));
	return false;
}

void cw_ingress_free(struct cw_ingress *g)
{
	(void)g;
}

#endif
