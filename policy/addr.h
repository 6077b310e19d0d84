#ifndef CAPWATCH_ADDR_H
#define CAPWATCH_ADDR_H
/* Socket address classification and text forms. Pure functions. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

typedef enum cw_addr_class {
	CW_ADDR_LOOPBACK,      /* 127.0.0.0/8, ::1, ::ffff:127.x.y.z */
	CW_ADDR_ANY,           /* 0.0.0.0, ::, ::ffff:0.0.0.0 (loopback as a connect target, wildcard as a bind) */
	CW_ADDR_EXTERNAL,      /* any other inet/inet6 address */
	CW_ADDR_UNIX_PATH,     /* AF_UNIX with a pathname */
	CW_ADDR_UNIX_ABSTRACT, /* AF_UNIX abstract (leading NUL) */
	CW_ADDR_UNIX_UNNAMED,  /* AF_UNIX with no name (autobind) */
	CW_ADDR_UNSPEC,        /* AF_UNSPEC: connect() dissolves an association */
	CW_ADDR_OTHER,         /* another family, or a malformed/short address */
} cw_addr_class;

cw_addr_class cw_addr_classify(const struct sockaddr *sa, size_t len);

/* The one unix address extractor: the pathname of SA (LEN bytes), as the
 * kernel takes it (unix_mkname_bsd: a 108-byte name with no NUL is
 * terminated, a shorter one stops at its first NUL), copied into OUT (when
 * not NULL) as a C string; returns its length, 1 to 108. -EINVAL when SA
 * is not a unix address with a pathname: another family, unnamed,
 * abstract (a first byte NUL), or longer than a sockaddr_un. */
#define CW_UNIX_PATH_MAX 108 /* sizeof(sun_path) */
/* The shortest AF_INET6 address the kernel takes: without sin6_scope_id
 * (RFC 2133's size). Every reader of an inet6 address checks this length,
 * never sizeof(struct sockaddr_in6) (red team 27, F1). */
#define CW_SIN6_MIN_LEN 24
int cw_addr_unix_path(const struct sockaddr *sa, size_t len, char out[CW_UNIX_PATH_MAX + 1]);
/* And the builder: a unix address naming PATH (N bytes, at most
 * CW_UNIX_PATH_MAX) with its NUL when it fits, without it at exactly 108
 * bytes, as the kernel takes it. Returns the address length, or -EINVAL
 * when PATH is too long (SS is then unchanged). */
int cw_addr_unix_set(struct sockaddr_storage *ss, const char *path, size_t n);

/* Text forms used as scopes and in the trace:
 *   "203.0.113.7:80", "[2001:db8::1]:443", "unix:/run/x.sock", "unix:@name"
 *   (abstract names with non-printable bytes are written as \xNN), "unix:"
 *   for unnamed, "family:N" otherwise. Returns 0 or -ENOSPC. */
int cw_addr_format(const struct sockaddr *sa, size_t len, char *out, size_t outsz);

/* Inverse of cw_addr_format for inet/inet6/unix forms (used by replay).
 * Returns 0 or -EINVAL. */
int cw_addr_parse(const char *text, struct sockaddr_storage *ss, size_t *len);

/* Match an address against a network scope from a profile:
 * "203.0.113.7:80", "203.0.113.0/24", "203.0.113.0/24:443", "[::1]:*",
 * "*:443", "unix:/path/glob*". Host names are not matched here (the
 * supervisor resolves them). Returns true on a match. */
bool cw_addr_scope_match(const char *scope, const struct sockaddr *sa, size_t len);

/* Is SCOPE a valid network scope? Returns CW_SCOPE_ADDR for the address forms
 * above (matched by cw_addr_scope_match), CW_SCOPE_HOST for a host name with
 * an optional port ("pkgs.example.com:443", "*.example.com:*"), or -EINVAL. */
#define CW_SCOPE_ADDR 0
#define CW_SCOPE_HOST 1
int cw_addr_scope_check(const char *scope);

/* Match a host name scope against a host name the caller trusts (e.g. one it
 * resolved itself) and a port. Case-insensitive; "*.example.com" matches
 * names strictly below example.com. False for address scopes. */
bool cw_addr_host_scope_match(const char *scope, const char *host, int port);

#endif
