#ifndef CAPWATCH_PROFILE_IMPL_H
#define CAPWATCH_PROFILE_IMPL_H
/* Inside the profile module (profile.c, profile_scope.c, profile_expand.c,
 * builtin.c, decide.c): the layout of a profile and the one scope matcher.
 * Not for the supervisor. */
#include <stdbool.h>
#include <stddef.h>
#include "profile.h"

struct cw_context;

/* Scope lists in the order they are checked. */
enum cw_list { CW_LIST_DENY, CW_LIST_ASK, CW_LIST_ALLOW, CW_LIST__COUNT };

struct cw_slot_rule {
	cw_verdict def;
	char **scopes[CW_LIST__COUNT]; /* owned, NULL when empty */
	size_t nscopes[CW_LIST__COUNT];
	char *notes;                   /* owned, may be NULL */
};

struct cw_profile {
	char *name;           /* owned */
	char *notes;          /* owned, may be NULL */
	bool flag_sensitive;  /* flag allowed secret reads and protected writes */
	struct cw_slot_rule slot[CW_SLOT__COUNT];
};

/* Built-in profiles (builtin.c): one row per profile, one column per slot. */
#define CW_BUILTIN__COUNT 5
struct cw_builtin {
	const char *name;
	const char *notes;
	bool flag_sensitive;
	cw_verdict verdict[CW_SLOT__COUNT];
};
extern const struct cw_builtin cw_builtins[CW_BUILTIN__COUNT];

/* Deepest "extends" chain a profile file may have. */
#define CW_EXTENDS_MAX 8

/* Does PATTERN (a scope from a profile or an --approve grant) match the
 * operation's SCOPE text / ADDR in SLOT? */
bool cw_scope_match(int slot, const struct cw_context *ctx, const char *pattern,
		    const char *scope, const void *addr, size_t addrlen);

/* Is PATTERN a valid scope for SLOT? NULL, or a short reason why not. */
const char *cw_scope_invalid(int slot, const char *pattern);

/* Is S non-empty and only ASCII letters, digits and bytes of EXTRA? (scopes
 * of variable names; profile names) */
bool cw_scope_only_chars(const char *s, const char *extra);

#endif
