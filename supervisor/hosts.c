/* Host-name network rules: the supervisor's own resolutions (hosts.h). */
#include "config.h"
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "supervisor/hosts.h"
#include "supervisor/log.h"
#include "supervisor/state.h"
#include "supervisor/record.h"
#include "supervisor/util.h"

#define MAX_SCOPES 64
#define MAX_ENTRIES 4096
#define MAX_NEGATIVE 256

/* The module's state (run->hosts), made at the first network operation
 * (cw_hosts_prepare) and used under run_lock. */
struct cw_hosts {
	const char *scopes[MAX_SCOPES]; /* host scopes, owned by the profile */
	size_t nscopes;
	bool wildcard;                  /* some scope is "*.name" */
	struct cw_resolved_host *tab;   /* names owned (strdup) */
	size_t n;
	double resolved_at;
	/* addresses whose reverse lookup confirmed nothing, with when */
	struct { struct sockaddr_storage a; double t; } neg[MAX_NEGATIVE];
	size_t nneg, negnext;
};

static bool same_ip(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return !memcmp(&((const struct sockaddr_in *)a)->sin_addr,
			       &((const struct sockaddr_in *)b)->sin_addr, 4);
	if (a->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
	return false;
}

/* An IPv4-mapped IPv6 address as its IPv4 form (the resolver's form). */
static void unmap(const struct sockaddr *sa, size_t len, struct sockaddr_storage *out, size_t *outlen)
{
	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET6 && len >= CW_SIN6_MIN_LEN &&
	    IN6_IS_ADDR_V4MAPPED(&((const struct sockaddr_in6 *)sa)->sin6_addr)) {
		struct sockaddr_in *v4 = (struct sockaddr_in *)out;
		v4->sin_family = AF_INET;
		v4->sin_port = ((const struct sockaddr_in6 *)sa)->sin6_port;
		memcpy(&v4->sin_addr, ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr + 12, 4);
		*outlen = sizeof(*v4);
		return;
	}
	if (len > sizeof(*out))
		len = sizeof(*out);
	memcpy(out, sa, len);
	*outlen = len;
}

static void add(struct cw_hosts *H, const struct sockaddr *sa, size_t len, const char *name)
{
	if (H->n >= MAX_ENTRIES || len > sizeof(struct sockaddr_storage))
		return;
	for (size_t i = 0; i < H->n; i++)
		if (same_ip((const struct sockaddr *)&H->tab[i].addr, sa) &&
		    strcasecmp(H->tab[i].name, name) == 0)
			return;
	struct cw_resolved_host *t = realloc(H->tab, (H->n + 1) * sizeof(*t));
	if (!t)
		return;
	H->tab = t;
	memset(&t[H->n], 0, sizeof(t[H->n]));
	memcpy(&t[H->n].addr, sa, len);
	t[H->n].addrlen = len;
	t[H->n].name = strdup(name);
	if (t[H->n].name)
		H->n++;
}

/* Resolve NAME and add its addresses; with WANT, only report whether WANT
 * is one of them (nothing added). */
static bool resolve(struct cw_hosts *H, const char *name, const struct sockaddr *want)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	bool found = false;
	int e = getaddrinfo(name, NULL, &hints, &res);
	if (e) {
		cw_debug("host scope %s: %s", name, gai_strerror(e));
		return false;
	}
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		if (want)
			found |= same_ip(ai->ai_addr, want);
		else
			add(H, ai->ai_addr, ai->ai_addrlen, name);
	}
	freeaddrinfo(res);
	return found;
}

static void clear(struct cw_hosts *H)
{
	for (size_t i = 0; i < H->n; i++)
		free((char *)H->tab[i].name);
	H->n = 0;
	H->nneg = H->negnext = 0;
}

static void refresh(struct cw_run *run)
{
	struct cw_hosts *H = run->hosts;
	clear(H);
	for (size_t i = 0; i < H->nscopes; i++) {
		const char *s = H->scopes[i];
		if (s[0] == '*')
			continue; /* wildcards: reverse-confirmed per address */
		char name[256];
		const char *c = strrchr(s, ':');
		size_t l = c ? (size_t)(c - s) : strlen(s);
		if (l == 0 || l >= sizeof name)
			continue;
		memcpy(name, s, l);
		name[l] = '\0';
		size_t before = H->n;
		resolve(H, name, NULL);
		cw_record_note(run, 0, "info", "host scope %s: %zu address%s resolved by capwatch", s,
			    H->n - before, H->n - before == 1 ? "" : "es");
	}
	H->resolved_at = cw_now();
	run->ctx.hosts = H->tab;
	run->ctx.nhosts = H->n;
}

static bool known(const struct cw_hosts *H, const struct sockaddr *sa)
{
	for (size_t i = 0; i < H->n; i++)
		if (same_ip((const struct sockaddr *)&H->tab[i].addr, sa))
			return true;
	double now = cw_now();
	for (size_t i = 0; i < H->nneg; i++)
		if (same_ip((const struct sockaddr *)&H->neg[i].a, sa) && now - H->neg[i].t < CW_HOSTS_TTL)
			return true;
	return false;
}

/* Forward-confirmed reverse lookup of SA against the wildcard scopes. */
static void reverse(struct cw_run *run, const struct sockaddr *sa, size_t len)
{
	struct cw_hosts *H = run->hosts;
	char name[NI_MAXHOST];
	int port = sa->sa_family == AF_INET ? ntohs(((const struct sockaddr_in *)sa)->sin_port) :
					      ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	bool ok = false;
	if (getnameinfo(sa, (socklen_t)len, name, sizeof name, NULL, 0, NI_NAMEREQD) == 0) {
		bool matches = false;
		for (size_t i = 0; i < H->nscopes && !matches; i++)
			matches = H->scopes[i][0] == '*' && cw_addr_host_scope_match(H->scopes[i], name, port);
		if (matches && resolve(H, name, sa)) {
			add(H, sa, len, name);
			cw_record_note(run, 0, "info", "host %s: confirmed by reverse and forward lookup", name);
			ok = true;
		}
	}
	if (!ok) {
		memcpy(&H->neg[H->negnext].a, sa, len);
		H->neg[H->negnext].t = cw_now();
		H->negnext = (H->negnext + 1) % MAX_NEGATIVE;
		if (H->nneg < MAX_NEGATIVE)
			H->nneg++;
	}
	run->ctx.hosts = H->tab;
	run->ctx.nhosts = H->n;
}

void cw_hosts_prepare(struct cw_run *run, const struct cw_op *op)
{
	if (!op->addr || (op->kind != CW_OP_CONNECT && op->kind != CW_OP_SEND &&
			  op->kind != CW_OP_BIND && op->kind != CW_OP_LISTEN))
		return;
	struct cw_hosts *H = run->hosts;
	if (!H) {
		/* Once per run: the first network operation. */
		H = run->hosts = calloc(1, sizeof(*H));
		if (!H)
			return; /* no host scope resolved: none matches (a denial) */
		size_t n = cw_profile_host_scopes(run->profile, H->scopes, MAX_SCOPES);
		H->nscopes = n < MAX_SCOPES ? n : MAX_SCOPES;
		for (size_t i = 0; i < H->nscopes; i++)
			H->wildcard |= H->scopes[i][0] == '*';
		if (H->nscopes)
			refresh(run);
	}
	if (!H->nscopes)
		return;
	if (op->addr->sa_family != AF_INET && op->addr->sa_family != AF_INET6)
		return;
	if (cw_now() - H->resolved_at > CW_HOSTS_TTL)
		refresh(run);
	if (H->wildcard) {
		struct sockaddr_storage ss;
		size_t len;
		unmap(op->addr, op->addrlen, &ss, &len);
		if (!known(H, (const struct sockaddr *)&ss))
			reverse(run, (const struct sockaddr *)&ss, len);
	}
}

void cw_hosts_free(struct cw_run *run)
{
	struct cw_hosts *H = run->hosts;
	run->ctx.hosts = NULL;
	run->ctx.nhosts = 0;
	if (!H)
		return;
	clear(H);
	free(H->tab);
	free(H);
	run->hosts = NULL;
}
