#ifndef CAPWATCH_HOSTS_H
#define CAPWATCH_HOSTS_H
/* Host-name network rules (issue 7): the supervisor resolves the profile's
 * host names itself, with its own resolver (NSS in the supervisor, which
 * shares the command's network and mount namespaces), and hands the
 * (address, name) pairs to cw_policy_decide through run->ctx.hosts. The
 * target's own claims (struct cw_op.host, the preload's annotations) are
 * never used to match.
 *
 * Exact names ("pkgs.example.com:443") are resolved on the first network
 * operation and again when the table is older than CW_HOSTS_TTL seconds.
 * Wildcards ("*.mirror.example.org:80") cannot be resolved forward: an
 * address of an operation is looked up in reverse, and the name kept only
 * when it matches a wildcard scope AND resolves forward to that address
 * (forward-confirmed reverse DNS; a PTR record alone proves nothing).
 *
 * The lookups block the event loop while they run: with DNS that is up to
 * the resolver's timeout. They happen only when the profile has host
 * scopes. */
#include "policy.h"

#define CW_HOSTS_TTL 30.0

struct cw_run;

/* Before deciding OP: make run->ctx.hosts current for OP's address. */
void cw_hosts_prepare(struct cw_run *run, const struct cw_op *op);
void cw_hosts_free(struct cw_run *run);

#endif
