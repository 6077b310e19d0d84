/* Socket addresses: classification, text forms and profile scopes.
 * inet_ntop/inet_pton are pure libc conversions; nothing here touches the
 * network. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include "addr.h"
#include "path.h"

#define SUN_OFF offsetof(struct sockaddr_un, sun_path)

static const uint8_t v4mapped_prefix[12] = { 0,0,0,0, 0,0,0,0, 0,0,0xff,0xff };

static bool is_v4mapped(const uint8_t a[16])
{
	return memcmp(a, v4mapped_prefix, 12) == 0;
}

cw_addr_class cw_addr_classify(const struct sockaddr *sa, size_t len)
{
	if (!sa || len < sizeof(sa_family_t))
		return CW_ADDR_OTHER;
	switch (sa->sa_family) {
	case AF_UNSPEC:
		return CW_ADDR_UNSPEC;
	case AF_INET: {
		if (len < sizeof(struct sockaddr_in))
			return CW_ADDR_OTHER;
		struct sockaddr_in sin;
		memcpy(&sin, sa, sizeof sin);
		uint32_t a = ntohl(sin.sin_addr.s_addr);
		if ((a >> 24) == 127)
			return CW_ADDR_LOOPBACK;
		if (a == 0)
			return CW_ADDR_ANY;
		return CW_ADDR_EXTERNAL;
	}
	case AF_INET6: {
		if (len < CW_SIN6_MIN_LEN)
			return CW_ADDR_OTHER;
		struct sockaddr_in6 sin6;
		memset(&sin6, 0, sizeof sin6);
		memcpy(&sin6, sa, len < sizeof sin6 ? len : sizeof sin6);
		const uint8_t *b = sin6.sin6_addr.s6_addr;
		static const uint8_t zero[16], one[16] = { [15] = 1 };
		if (memcmp(b, one, 16) == 0)
			return CW_ADDR_LOOPBACK;
		if (memcmp(b, zero, 16) == 0)
			return CW_ADDR_ANY;
		if (is_v4mapped(b)) {
			if (b[12] == 127)
				return CW_ADDR_LOOPBACK;
			if ((b[12] | b[13] | b[14] | b[15]) == 0)
				return CW_ADDR_ANY;
		}
		return CW_ADDR_EXTERNAL;
	}
	case AF_UNIX: {
		const struct sockaddr_un *sun = (const struct sockaddr_un *)sa;
		if (len > sizeof(struct sockaddr_un))
			return CW_ADDR_OTHER;
		if (len == SUN_OFF)
			return CW_ADDR_UNIX_UNNAMED;
		if (sun->sun_path[0] == '\0')
			return CW_ADDR_UNIX_ABSTRACT;
		return CW_ADDR_UNIX_PATH;
	}
	default:
		return CW_ADDR_OTHER;
	}
}

_Static_assert(CW_UNIX_PATH_MAX == sizeof(((struct sockaddr_un *)0)->sun_path), "sun_path");

int cw_addr_unix_path(const struct sockaddr *sa, size_t len, char out[CW_UNIX_PATH_MAX + 1])
{
	if (cw_addr_classify(sa, len) != CW_ADDR_UNIX_PATH)
		return -EINVAL;
	/* classify: SUN_OFF < len <= sizeof(struct sockaddr_un) */
	const char *n = (const char *)sa + SUN_OFF;
	size_t nl = strnlen(n, len - SUN_OFF);
	if (out) {
		memcpy(out, n, nl);
		out[nl] = '\0';
	}
	return (int)nl;
}

int cw_addr_unix_set(struct sockaddr_storage *ss, const char *path, size_t n)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)ss;

	if (n > sizeof sun->sun_path)
		return -EINVAL;
	sun->sun_family = AF_UNIX;
	memset(sun->sun_path, 0, sizeof sun->sun_path);
	memcpy(sun->sun_path, path, n);
	return (int)(SUN_OFF + n + (n < sizeof sun->sun_path));
}

/* ---- text forms ---------------------------------------------------------- */

struct out {
	char *p;
	size_t sz, len;
	bool overflow;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->sz) {
		o->overflow = true;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

static void putf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct out *o, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof buf) {
		o->overflow = true;
		return;
	}
	put(o, buf, (size_t)n);
}

int cw_addr_format(const struct sockaddr *sa, size_t len, char *outbuf, size_t outsz)
{
	if (!outbuf || outsz == 0)
		return -ENOSPC;
	struct out o = { .p = outbuf, .sz = outsz };
	outbuf[0] = '\0';
	char ip[INET6_ADDRSTRLEN];
	cw_addr_class c = cw_addr_classify(sa, len);

	if (!sa || len < sizeof(sa_family_t)) {
		put(&o, "family:?", 8);
	} else if (sa->sa_family == AF_INET && c != CW_ADDR_OTHER) {
		struct sockaddr_in sin;
		memcpy(&sin, sa, sizeof sin);
		inet_ntop(AF_INET, &sin.sin_addr, ip, sizeof ip);
		putf(&o, "%s:%u", ip, (unsigned)ntohs(sin.sin_port));
	} else if (sa->sa_family == AF_INET6 && c != CW_ADDR_OTHER) {
		struct sockaddr_in6 sin6;
		memset(&sin6, 0, sizeof sin6);
		memcpy(&sin6, sa, len < sizeof sin6 ? len : sizeof sin6);
		inet_ntop(AF_INET6, &sin6.sin6_addr, ip, sizeof ip);
		if (sin6.sin6_scope_id)
			putf(&o, "[%s%%%u]:%u", ip, (unsigned)sin6.sin6_scope_id,
			     (unsigned)ntohs(sin6.sin6_port));
		else
			putf(&o, "[%s]:%u", ip, (unsigned)ntohs(sin6.sin6_port));
	} else if (c == CW_ADDR_UNIX_UNNAMED) {
		put(&o, "unix:", 5);
	} else if (c == CW_ADDR_UNIX_ABSTRACT) {
		const unsigned char *n = (const unsigned char *)sa + SUN_OFF + 1;
		size_t nl = len - SUN_OFF - 1;
		put(&o, "unix:@", 6);
		for (size_t i = 0; i < nl; i++) {
			if (n[i] < 0x20 || n[i] >= 0x7f || n[i] == '\\')
				putf(&o, "\\x%02x", n[i]);
			else
				put(&o, (const char *)n + i, 1);
		}
	} else if (c == CW_ADDR_UNIX_PATH) {
		char n[CW_UNIX_PATH_MAX + 1];
		int nl = cw_addr_unix_path(sa, len, n);
		put(&o, "unix:", 5);
		put(&o, n, (size_t)nl);
	} else {
		putf(&o, "family:%u", (unsigned)sa->sa_family);
	}
	return o.overflow ? -ENOSPC : 0;
}

/* Strict decimal port 0..65535. */
static int parse_port(const char *s, size_t n)
{
	if (n == 0 || n > 5)
		return -1;
	int v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v > 65535 ? -1 : v;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int cw_addr_parse(const char *text, struct sockaddr_storage *ss, size_t *len)
{
	if (!text || !ss || !len)
		return -EINVAL;
	memset(ss, 0, sizeof *ss);

	if (strncmp(text, "unix:", 5) == 0) {
		struct sockaddr_un *sun = (struct sockaddr_un *)ss;
		const char *n = text + 5;
		sun->sun_family = AF_UNIX;
		if (*n == '\0') {
			*len = SUN_OFF;
			return 0;
		}
		if (*n == '@') {
			size_t k = 1; /* sun_path[0] stays NUL */
			for (n++; *n; k++) {
				if (k >= sizeof sun->sun_path)
					return -EINVAL;
				if (n[0] == '\\' && n[1] == 'x') {
					int h = hexval(n[2]), l = h < 0 ? -1 : hexval(n[3]);
					if (l < 0)
						return -EINVAL;
					sun->sun_path[k] = (char)(h << 4 | l);
					n += 4;
				} else {
					sun->sun_path[k] = *n++;
				}
			}
			*len = SUN_OFF + k;
			return 0;
		}
		/* 108 bytes fit without a NUL, as the kernel takes them. */
		int l = cw_addr_unix_set(ss, n, strlen(n));
		if (l < 0)
			return l;
		*len = (size_t)l;
		return 0;
	}

	if (strncmp(text, "family:", 7) == 0) {
		int f = parse_port(text + 7, strlen(text + 7));
		if (f < 0 || f > 255)
			return -EINVAL;
		ss->ss_family = (sa_family_t)f;
		*len = sizeof(sa_family_t);
		return 0;
	}

	const char *colon;
	char host[INET6_ADDRSTRLEN + 16];
	if (text[0] == '[') {
		const char *rb = strchr(text, ']');
		if (!rb || rb[1] != ':' || (size_t)(rb - text - 1) >= sizeof host)
			return -EINVAL;
		memcpy(host, text + 1, (size_t)(rb - text - 1));
		host[rb - text - 1] = '\0';
		colon = rb + 1;
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
		char *pct = strchr(host, '%');
		if (pct) {
			*pct = '\0';
			int sid = parse_port(pct + 1, strlen(pct + 1));
			if (sid < 0)
				return -EINVAL; /* numeric scope ids only */
			sin6->sin6_scope_id = (uint32_t)sid;
		}
		if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
			return -EINVAL;
		int port = parse_port(colon + 1, strlen(colon + 1));
		if (port < 0)
			return -EINVAL;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		*len = sizeof *sin6;
		return 0;
	}
	colon = strrchr(text, ':');
	if (!colon || (size_t)(colon - text) >= sizeof host)
		return -EINVAL;
	memcpy(host, text, (size_t)(colon - text));
	host[colon - text] = '\0';
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		return -EINVAL;
	int port = parse_port(colon + 1, strlen(colon + 1));
	if (port < 0)
		return -EINVAL;
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	*len = sizeof *sin;
	return 0;
}

/* ---- scopes -------------------------------------------------------------- */

enum scope_kind { SCOPE_ANYHOST, SCOPE_V4, SCOPE_V6, SCOPE_UNIX, SCOPE_HOST };

struct net_scope {
	enum scope_kind kind;
	uint8_t addr[16];   /* V4: first 4 bytes */
	int prefix;         /* bits */
	int port;           /* -1: any */
	const char *text;   /* UNIX: the glob after "unix:"; HOST: the name */
	size_t textlen;     /* HOST: length of the name */
};

static int parse_prefix(const char *s, size_t n, int max)
{
	int v = parse_port(s, n);
	return (v < 0 || v > max || n > 3) ? -1 : v;
}

/* "a.b.c.d" or "a.b.c.d/nn"; "v6" or "v6/nn". */
static int parse_net(const char *s, size_t n, struct net_scope *ns, bool v6)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash = memchr(s, '/', n);
	size_t al = slash ? (size_t)(slash - s) : n;
	if (al == 0 || al >= sizeof buf)
		return -EINVAL;
	memcpy(buf, s, al);
	buf[al] = '\0';
	int max = v6 ? 128 : 32;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, buf, ns->addr) != 1)
		return -EINVAL;
	ns->kind = v6 ? SCOPE_V6 : SCOPE_V4;
	ns->prefix = max;
	if (slash) {
		ns->prefix = parse_prefix(slash + 1, n - al - 1, max);
		if (ns->prefix < 0)
			return -EINVAL;
	}
	/* An IPv4-mapped network is an IPv4 network. */
	if (v6 && ns->prefix >= 96 && is_v4mapped(ns->addr)) {
		memmove(ns->addr, ns->addr + 12, 4);
		ns->kind = SCOPE_V4;
		ns->prefix -= 96;
	}
	return 0;
}

static bool is_hostname(const char *s, size_t n)
{
	if (n >= 2 && s[0] == '*' && s[1] == '.') {
		s += 2;
		n -= 2;
	}
	if (n == 0 || n > 253)
		return false;
	size_t label = 0;
	bool last_all_digits = true;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '.') {
			if (label == 0)
				return false;
			label = 0;
			last_all_digits = true;
			continue;
		}
		bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		if (!alnum && !(c == '-' && label > 0))
			return false;
		if (!(c >= '0' && c <= '9'))
			last_all_digits = false;
		if (++label > 63)
			return false;
	}
	/* "10.0.0.300" is a bad address, not a host name */
	return label > 0 && !last_all_digits;
}

static int parse_port_or_star(const char *s, size_t n)
{
	if (n == 1 && s[0] == '*')
		return -1;
	int p = parse_port(s, n);
	return p < 0 ? -2 : p;
}

static int parse_scope(const char *scope, struct net_scope *ns)
{
	memset(ns, 0, sizeof *ns);
	ns->port = -1;
	if (!scope || !*scope)
		return -EINVAL;
	if (strncmp(scope, "unix:", 5) == 0) {
		ns->kind = SCOPE_UNIX;
		ns->text = scope + 5;
		return 0;
	}
	size_t n = strlen(scope);
	const char *host = scope, *port = NULL;
	size_t hl = n;
	if (scope[0] == '[') {
		const char *rb = strchr(scope, ']');
		if (!rb)
			return -EINVAL;
		/* "[v6]", "[v6/nn]", "[v6]/nn", each optionally ":port" */
		char buf[INET6_ADDRSTRLEN + 8];
		size_t il = (size_t)(rb - scope - 1);
		const char *after = rb + 1;
		if (*after == '/') {
			const char *c = strchr(after, ':');
			size_t pl = c ? (size_t)(c - after) : strlen(after);
			if (il + pl >= sizeof buf)
				return -EINVAL;
			memcpy(buf, scope + 1, il);
			memcpy(buf + il, after, pl);
			il += pl;
			after += pl;
		} else {
			if (il >= sizeof buf)
				return -EINVAL;
			memcpy(buf, scope + 1, il);
		}
		buf[il] = '\0';
		if (parse_net(buf, il, ns, true) < 0)
			return -EINVAL;
		if (*after == ':')
			port = after + 1;
		else if (*after)
			return -EINVAL;
	} else {
		const char *c1 = strchr(scope, ':');
		if (c1 && strchr(c1 + 1, ':')) {
			/* bare IPv6 (no port): "2001:db8::/32", "::1" */
			return parse_net(scope, n, ns, true);
		}
		if (c1) {
			hl = (size_t)(c1 - scope);
			port = c1 + 1;
		}
		if (hl == 1 && host[0] == '*') {
			ns->kind = SCOPE_ANYHOST;
		} else if (parse_net(host, hl, ns, false) == 0) {
			/* done */
		} else if (is_hostname(host, hl)) {
			ns->kind = SCOPE_HOST;
			ns->text = host;
			ns->textlen = hl;
		} else {
			return -EINVAL;
		}
	}
	if (port) {
		ns->port = parse_port_or_star(port, strlen(port));
		if (ns->port == -2)
			return -EINVAL;
	}
	return 0;
}

int cw_addr_scope_check(const char *scope)
{
	struct net_scope ns;
	if (parse_scope(scope, &ns) < 0)
		return -EINVAL;
	return ns.kind == SCOPE_HOST ? CW_SCOPE_HOST : CW_SCOPE_ADDR;
}

static bool prefix_eq(const uint8_t *a, const uint8_t *b, int bits)
{
	int bytes = bits / 8, rem = bits % 8;
	if (memcmp(a, b, (size_t)bytes) != 0)
		return false;
	if (rem == 0)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rem));
	return (a[bytes] & mask) == (b[bytes] & mask);
}

bool cw_addr_scope_match(const char *scope, const struct sockaddr *sa, size_t len)
{
	struct net_scope ns;
	if (parse_scope(scope, &ns) < 0 || ns.kind == SCOPE_HOST)
		return false;
	cw_addr_class c = cw_addr_classify(sa, len);

	if (ns.kind == SCOPE_UNIX) {
		if (c != CW_ADDR_UNIX_PATH && c != CW_ADDR_UNIX_ABSTRACT && c != CW_ADDR_UNIX_UNNAMED)
			return false;
		char text[sizeof(struct sockaddr_un) * 4 + 8];
		if (cw_addr_format(sa, len, text, sizeof text) < 0)
			return false;
		return cw_path_glob_match(NULL, ns.text, text + 5);
	}

	if (c != CW_ADDR_LOOPBACK && c != CW_ADDR_ANY && c != CW_ADDR_EXTERNAL)
		return false;
	uint8_t a[16];
	int fam, port;
	if (sa->sa_family == AF_INET) {
		struct sockaddr_in sin;
		memcpy(&sin, sa, sizeof sin);
		memcpy(a, &sin.sin_addr, 4);
		fam = SCOPE_V4;
		port = ntohs(sin.sin_port);
	} else {
		struct sockaddr_in6 sin6;
		memset(&sin6, 0, sizeof sin6);
		memcpy(&sin6, sa, len < sizeof sin6 ? len : sizeof sin6);
		memcpy(a, sin6.sin6_addr.s6_addr, 16);
		fam = SCOPE_V6;
		port = ntohs(sin6.sin6_port);
		if (is_v4mapped(a)) {
			memmove(a, a + 12, 4);
			fam = SCOPE_V4;
		}
	}
	if (ns.port >= 0 && ns.port != port)
		return false;
	if (ns.kind == SCOPE_ANYHOST)
		return true;
	if ((int)ns.kind != fam)
		return false;
	return prefix_eq(a, ns.addr, ns.prefix);
}

/* ASCII only: host names, and no dependence on the caller's locale. */
static bool ascii_caseeq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
		if (x >= 'A' && x <= 'Z') x += 32;
		if (y >= 'A' && y <= 'Z') y += 32;
		if (x != y)
			return false;
	}
	return true;
}

bool cw_addr_host_scope_match(const char *scope, const char *host, int port)
{
	struct net_scope ns;
	if (!host || parse_scope(scope, &ns) < 0 || ns.kind != SCOPE_HOST)
		return false;
	if (ns.port >= 0 && ns.port != port)
		return false;
	size_t hl = strlen(host);
	while (hl > 0 && host[hl - 1] == '.')
		hl--; /* "example.com." is "example.com" */
	if (ns.textlen >= 2 && ns.text[0] == '*' && ns.text[1] == '.') {
		/* "*.example.com": any name strictly below example.com */
		size_t sl = ns.textlen - 1; /* ".example.com" */
		return hl > sl && ascii_caseeq(host + hl - sl, ns.text + 1, sl);
	}
	return hl == ns.textlen && ascii_caseeq(host, ns.text, hl);
}
