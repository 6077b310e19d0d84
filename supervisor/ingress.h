/* The kernel back end's ingress guard: a cgroup BPF program that drops
 * datagrams arriving off lo for the tree's unconnected, wildcard-bound
 * datagram sockets capwatch did not mark (supervisor/bpf/ingress.bpf.c,
 * SECURITY.md "The ingress guard", e186). */
#ifndef CW_INGRESS_H
#define CW_INGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cw_ingress;

/* Load the guard and attach it to the cgroup directory CG_DIR, before
 * the command runs. 0 and *OUT, or -errno with WHY filled in (a build
 * without BPF: -ENOSYS). */
int cw_ingress_attach(const char *cg_dir, struct cw_ingress **out, char *why, size_t n);

/* Let the socket SOCK (capwatch's own descriptor of it, a duplicate of
 * the tree's) receive from off lo: an allowed host-visible bind, or an
 * allowed exchange with an external address. G NULL (no guard): nothing.
 * Safe from any thread. 0 or -errno. */
int cw_ingress_mark(struct cw_ingress *g, int sock);

struct cw_ingress_counts {
	uint64_t dropped; /* packets dropped */
	uint64_t marked;  /* sockets marked */
};
/* The counts so far. false when G is NULL. */
bool cw_ingress_counts(struct cw_ingress *g, struct cw_ingress_counts *c);

/* Detach and free. NULL: nothing. */
void cw_ingress_free(struct cw_ingress *g);

#endif
