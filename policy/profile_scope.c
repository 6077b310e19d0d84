/* Profile scopes: which scopes a slot accepts, and the one matcher of an
 * operation's scope (path, program, address or host name, variable name)
 * against a profile's scope lists, used by cw_policy_decide. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include "policy.h"
#include "profile.h"
#include "profile_impl.h"

enum slot_kind { SK_PATH, SK_PROGRAM, SK_NET, SK_CONTROL, SK_ENV, SK_UNRESTRICTED };

static enum slot_kind slot_kind(int slot)
{
	switch (slot) {
	case CW_CAP_PROCESS_SPAWN:
		return SK_PROGRAM;
	case CW_CAP_ISOLATED_LOOPBACK:
	case CW_CAP_HOST_VISIBLE_BINDING:
	case CW_CAP_EXTERNAL_NETWORK:
		return SK_NET;
	case CW_CAP_PROCESS_CONTROL:
		return SK_CONTROL;
	case CW_CAP_ENVIRONMENT:
		return SK_ENV;
	case CW_CAP_UNRESTRICTED:
		return SK_UNRESTRICTED;
	default: /* filesystem_read, the secret slot, workspace_write, protected_metadata */
		return SK_PATH;
	}
}

static bool is_path_glob(const char *s)
{
	return s[0] == '/' || s[0] == '*' || (s[0] == '~' && (s[1] == '/' || s[1] == '\0'));
}

bool cw_scope_only_chars(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		char c = *s;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr(extra, c)))
			return false;
	}
	return true;
}

const char *cw_scope_invalid(int slot, const char *s)
{
	if (!s || !*s)
		return "empty scope";
	if (strlen(s) >= CW_GLOB_MAX)
		return "scope too long";
	switch (slot_kind(slot)) {
	case SK_PATH:
		return is_path_glob(s) ? NULL : "expected an absolute path glob (\"/...\", \"~/...\" or \"**/...\")";
	case SK_PROGRAM:
		return is_path_glob(s) ? NULL : "expected a program path or glob (\"/usr/bin/make\", \"**/make\")";
	case SK_NET:
		return cw_addr_scope_check(s) >= 0 ? NULL
			: "expected an address scope (\"203.0.113.7:443\", \"10.0.0.0/8:*\", \"[::1]:80\", \"*:443\", \"host.example:443\", \"unix:/path\")";
	case SK_CONTROL:
		return strncmp(s, "unix:", 5) == 0 ? NULL
			: "expected a unix socket scope (\"unix:/run/x.sock\", \"unix:@name\"); pids are not scoped";
	case SK_ENV:
		return cw_scope_only_chars(s, "_*?") ? NULL : "expected a variable name or glob (\"CI\", \"NPM_*\")";
	case SK_UNRESTRICTED:
		return (is_path_glob(s) || cw_scope_only_chars(s, "_*?")) ? NULL
			: "expected a path glob or a system call name";
	}
	return "unknown slot";
}

/* "host:port" text (the operation's scope) against a host-name pattern. */
static bool host_text_match(const char *pattern, const char *scope)
{
	const char *c = strrchr(scope, ':');
	if (!c || c == scope)
		return false;
	char host[256];
	size_t hl = (size_t)(c - scope);
	if (hl >= sizeof host)
		return false;
	memcpy(host, scope, hl);
	host[hl] = '\0';
	char *end;
	long port = strtol(c + 1, &end, 10);
	if (*end || end == c + 1 || port < 0 || port > 65535)
		return false;
	return cw_addr_host_scope_match(pattern, host, (int)port);
}

/* Same IP address (ports ignored); an IPv4-mapped IPv6 address is its IPv4
 * address. */
static bool ip_of(const struct sockaddr *sa, size_t len, unsigned char ip[16], int *fam)
{
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		memcpy(ip, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		*fam = AF_INET;
		return true;
	}
	if (sa->sa_family == AF_INET6 && len >= CW_SIN6_MIN_LEN) {
		const unsigned char *a = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		static const unsigned char mapped[12] = { 0,0,0,0,0,0,0,0,0,0,0xff,0xff };
		if (!memcmp(a, mapped, 12)) {
			memcpy(ip, a + 12, 4);
			*fam = AF_INET;
		} else {
			memcpy(ip, a, 16);
			*fam = AF_INET6;
		}
		return true;
	}
	return false;
}

static int port_of(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}

/* The name the supervisor resolved for the operation's address that
 * PATTERN (a host-name scope) matches, or NULL. */
static const char *resolved_host_match(const struct cw_context *ctx, const char *pattern,
				       const char *scope, const void *addr, size_t addrlen)
{
	struct sockaddr_storage ss;
	size_t len;
	unsigned char ip[16], eip[16];
	int fam, efam;

	if (!ctx || !ctx->nhosts)
		return NULL;
	if (!addr) {
		if (!scope || cw_addr_parse(scope, &ss, &len) < 0)
			return NULL;
		addr = &ss;
		addrlen = len;
	}
	if (!ip_of(addr, addrlen, ip, &fam))
		return NULL;
	int port = port_of(addr);
	for (size_t i = 0; i < ctx->nhosts; i++) {
		const struct cw_resolved_host *h = &ctx->hosts[i];
		if (!h->name || !ip_of((const struct sockaddr *)&h->addr, h->addrlen, eip, &efam))
			continue;
		if (efam != fam || memcmp(ip, eip, fam == AF_INET ? 4 : 16))
			continue;
		if (cw_addr_host_scope_match(pattern, h->name, port))
			return h->name;
	}
	return NULL;
}

size_t cw_profile_host_scopes(const cw_profile *p, const char **out, size_t max)
{
	static const int net_slots[] = { CW_CAP_EXTERNAL_NETWORK, CW_CAP_ISOLATED_LOOPBACK,
					 CW_CAP_HOST_VISIBLE_BINDING };
	size_t n = 0;
	if (!p)
		return 0;
	for (size_t k = 0; k < sizeof net_slots / sizeof net_slots[0]; k++) {
		const struct cw_slot_rule *r = &p->slot[net_slots[k]];
		for (int l = 0; l < CW_LIST__COUNT; l++)
			for (size_t i = 0; i < r->nscopes[l]; i++)
				if (cw_addr_scope_check(r->scopes[l][i]) == CW_SCOPE_HOST) {
					if (n < max)
						out[n] = r->scopes[l][i];
					n++;
				}
	}
	return n;
}

bool cw_scope_match(int slot, const struct cw_context *ctx, const char *pattern,
		    const char *scope, const void *addr, size_t addrlen)
{
	if (!pattern || !scope)
		return false;
	switch (slot_kind(slot)) {
	case SK_NET:
	case SK_CONTROL: {
		int k = cw_addr_scope_check(pattern);
		if (k < 0)
			return false;
		if (k == CW_SCOPE_HOST)
			return host_text_match(pattern, scope) ||
			       resolved_host_match(ctx, pattern, scope, addr, addrlen);
		if (addr)
			return cw_addr_scope_match(pattern, addr, addrlen);
		struct sockaddr_storage ss;
		size_t len;
		if (cw_addr_parse(scope, &ss, &len) < 0)
			return false;
		return cw_addr_scope_match(pattern, (const struct sockaddr *)&ss, len);
	}
	case SK_ENV: {
		/* every name in the comma-separated list must match */
		char name[256];
		bool any = false;
		for (const char *p = scope; *p; ) {
			const char *e = strchr(p, ',');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			if (n >= sizeof name)
				return false;
			if (n > 0) {
				memcpy(name, p, n);
				name[n] = '\0';
				if (!cw_path_glob_match(NULL, pattern, name))
					return false;
				any = true;
			}
			p += n;
			if (*p == ',')
				p++;
		}
		return any;
	}
	default:
		return cw_path_glob_match(ctx, pattern, scope);
	}
}

/* environment: SCOPE is a comma-separated list of names. A deny or ask
 * pattern applies when it matches any name; the allow list applies when
 * every name is matched by some allow pattern (the index reported is the
 * pattern that matched the first name). */
static bool env_any(const char *pattern, const char *names)
{
	char name[256];
	for (const char *p = names; *p; ) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n > 0 && n < sizeof name) {
			memcpy(name, p, n);
			name[n] = '\0';
			if (cw_path_glob_match(NULL, pattern, name))
				return true;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

static long env_all(char *const *patterns, size_t np, const char *names)
{
	char name[256];
	long first = -1;
	bool any = false;
	for (const char *p = names; *p; ) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n > 0) {
			if (n >= sizeof name)
				return -1;
			memcpy(name, p, n);
			name[n] = '\0';
			size_t i;
			for (i = 0; i < np; i++)
				if (cw_path_glob_match(NULL, patterns[i], name))
					break;
			if (i == np)
				return -1;
			if (!any)
				first = (long)i;
			any = true;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return first;
}

cw_verdict cw_profile_match(const cw_profile *p, const struct cw_context *ctx, int slot,
			    const char *scope, const void *addr, size_t addrlen,
			    char *rule, size_t rulesz)
{
	static const cw_verdict list_verdict[CW_LIST__COUNT] = {
		[CW_LIST_DENY] = CW_DENY, [CW_LIST_ASK] = CW_ASK, [CW_LIST_ALLOW] = CW_ALLOW,
	};
	if (!p || slot < 0 || slot >= CW_SLOT__COUNT) {
		if (rule && rulesz)
			snprintf(rule, rulesz, "builtin:invalid-slot");
		return CW_DENY;
	}
	const struct cw_slot_rule *r = &p->slot[slot];
	const char *sname = cw_slot_name(slot);
	if (scope) {
		for (int l = 0; l < CW_LIST__COUNT; l++) {
			long hit = -1;
			if (slot == CW_CAP_ENVIRONMENT && l == CW_LIST_ALLOW) {
				if (r->nscopes[l])
					hit = env_all(r->scopes[l], r->nscopes[l], scope);
			} else {
				for (size_t i = 0; i < r->nscopes[l] && hit < 0; i++) {
					bool m = slot == CW_CAP_ENVIRONMENT
						? env_any(r->scopes[l][i], scope)
						: cw_scope_match(slot, ctx, r->scopes[l][i], scope, addr, addrlen);
					if (m)
						hit = (long)i;
				}
			}
			if (hit >= 0) {
				const char *pat = slot == CW_CAP_ENVIRONMENT ? NULL : r->scopes[l][hit];
				const char *host = NULL;
				if (pat && (slot_kind(slot) == SK_NET || slot_kind(slot) == SK_CONTROL) &&
				    cw_addr_scope_check(pat) == CW_SCOPE_HOST)
					host = resolved_host_match(ctx, pat, scope, addr, addrlen);
				if (rule && rulesz && host)
					snprintf(rule, rulesz, "%s:%s:%s[%ld] host %.100s", p->name, sname,
						 cw_verdict_name(list_verdict[l]), hit, host);
				else if (rule && rulesz)
					snprintf(rule, rulesz, "%s:%s:%s[%ld]", p->name, sname,
						 cw_verdict_name(list_verdict[l]), hit);
				return list_verdict[l];
			}
		}
	}
	if (rule && rulesz)
		snprintf(rule, rulesz, "%s:%s:default", p->name, sname);
	return r->def;
}
