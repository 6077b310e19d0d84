#ifndef CAPWATCH_PROFILE_H
#define CAPWATCH_PROFILE_H
/* Profiles: the built-in ones of contract section 3 and JSON profile files.
 *
 * Profile JSON (schemas/profile.schema.json, man capwatch-profile(5)):
 *   {
 *     "name": "ci-build",                  required
 *     "extends": "verify",                 optional: a built-in name, or a
 *                                          profile file (resolved by the caller)
 *     "notes": "why this profile exists",  optional
 *     "flagSensitive": true,               optional, inherited (observe: true)
 *     "$schema": "...",                    optional, ignored
 *     "capabilities": {                    optional; slot name -> rule
 *       "external_network": "deny",        shorthand for {"default": "deny"}
 *       "workspace_write": {
 *         "default": "allow",              allow|deny|ask; inherited when absent
 *         "deny":  ["/srv/generated"],     scopes, checked first
 *         "ask":   [...],                  then these
 *         "allow": [...],                  then these, then default
 *         "notes": "..."
 *       }
 *     }
 *   }
 * Scopes are path globs (filesystem_read, filesystem_read_secret,
 * workspace_write, protected_metadata, unrestricted paths), program paths or
 * globs (process_spawn), address scopes (cw_addr_scope_match) or host:port
 * names (network kinds), pids are not scoped, syscall names (unrestricted),
 * variable names (environment).
 * A child's scope lists replace the parent's for that slot only when given
 * (each of deny/ask/allow separately); a profile without "extends" starts
 * from deny everywhere. Unknown and duplicate keys are errors.
 * Host-name scopes ("pkgs.example.com:443") are validated and kept;
 * cw_policy_decide matches them only against names the supervisor resolved
 * itself (struct cw_context.hosts), never the target's own claims
 * (struct cw_op.host). The rule of such a match names the host:
 * "ci:external_network:allow[0] host pkgs.example.com".
 */
#include <stdbool.h>
#include <stddef.h>
#include "cap.h"

typedef enum cw_verdict { CW_ALLOW = 0, CW_DENY = 1, CW_ASK = 2 } cw_verdict;
const char *cw_verdict_name(cw_verdict v); /* "allow", "deny", "ask" */

typedef struct cw_profile cw_profile;

/* Names of the built-in profiles, NULL-terminated: none readonly verify repair observe. */
extern const char *const cw_builtin_profile_names[];

/* Returns 0 and a new profile, or -ENOENT when NAME is not built in. */
int cw_profile_builtin(const char *name, cw_profile **out);

/* Called by cw_profile_parse for an "extends" that is not a built-in name:
 * must return a parsed profile for REF (e.g. by loading a file relative to
 * the child profile's directory) or -errno with a message in ERR.
 * DEPTH is the one to pass on to cw_profile_parse for REF. The message is
 * embedded in the caller's: "child.json:2: extends \"base.json\": MESSAGE". */
typedef int (*cw_profile_resolver)(void *opaque, const char *ref, int depth,
				   cw_profile **out, char *err, size_t errsz);

/* Parse a profile file's text. ORIGIN is the file name used in messages.
 * On error returns -EINVAL and writes one line into ERR naming the
 * location: "ORIGIN:LINE: unknown capability \"netwrk\"" (a line number is
 * given for syntax errors and, where the key can be found, semantic ones;
 * otherwise a JSON path such as "ORIGIN: capabilities.workspace_write.deny[2]: ...").
 * RESOLVER may be NULL (then only built-in names may be extended).
 * Extends chains deeper than 8 are an error (loops included). */
int cw_profile_parse(const char *text, size_t len, const char *origin,
		     cw_profile_resolver resolver, void *opaque, int depth,
		     cw_profile **out, char *err, size_t errsz);

void cw_profile_free(cw_profile *p);
const char *cw_profile_name(const cw_profile *p);

/* The slot's default verdict (for `capwatch profiles` and tests). */
cw_verdict cw_profile_default(const cw_profile *p, int slot);

/* Does the profile let the command start at all? (false for "none": its
 * process_spawn default is deny with no allow scope) */
bool cw_profile_allows_start(const cw_profile *p);

/* The observe profile flags secret reads and protected writes it allows. */
bool cw_profile_flags_sensitive(const cw_profile *p);

/* The profile as JSON text in the profile-file format, fully expanded (no
 * extends). Caller frees. NULL on allocation failure. */
char *cw_profile_to_json(const cw_profile *p);

/* The host-name scopes of the network slots (external_network,
 * isolated_loopback, host_visible_binding), as written in the profile
 * ("pkgs.example.com:443", "*.mirror.example.org:*"), for the supervisor to
 * resolve. Fills up to MAX pointers (owned by the profile) into OUT and
 * returns how many there are in all. */
size_t cw_profile_host_scopes(const cw_profile *p, const char **out, size_t max);

/* Match OP's scope text against the slot's scope lists: deny scopes, then
 * ask, then allow, then the default. Fills RULE ("verify:workspace_write:default",
 * "ci-build:external_network:allow[1]", zero-based index) and returns the verdict.
 * Used only by cw_policy_decide. */
struct cw_context;
cw_verdict cw_profile_match(const cw_profile *p, const struct cw_context *ctx, int slot,
			    const char *scope, const void *addr, size_t addrlen,
			    char *rule, size_t rulesz);

#endif
