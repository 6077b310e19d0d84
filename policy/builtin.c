/* The built-in profiles of contract.md section 3, as data.
 *
 * The table below is the contract's table transposed: one row per profile,
 * one column per slot, in the contract's row order. `capwatch profiles`,
 * the unit tests (test_profile.c checks every cell against a copy typed
 * from the contract) and cw_profile_builtin all read it; nothing else
 * knows what a built-in profile allows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile.h"
#include "profile_impl.h"

#define A CW_ALLOW
#define D CW_DENY
#define Q CW_ASK
#define ROW(fs, sec, ws, prot, spawn, lo, bind, ext, ctl, env, unr) { \
	[CW_CAP_FILESYSTEM_READ] = fs, [CW_SLOT_SECRET_READ] = sec,          \
	[CW_CAP_WORKSPACE_WRITE] = ws, [CW_CAP_PROTECTED_METADATA] = prot,   \
	[CW_CAP_PROCESS_SPAWN] = spawn, [CW_CAP_ISOLATED_LOOPBACK] = lo,     \
	[CW_CAP_HOST_VISIBLE_BINDING] = bind, [CW_CAP_EXTERNAL_NETWORK] = ext, \
	[CW_CAP_PROCESS_CONTROL] = ctl, [CW_CAP_ENVIRONMENT] = env,          \
	[CW_CAP_UNRESTRICTED] = unr }

const struct cw_builtin cw_builtins[CW_BUILTIN__COUNT] = {
	/*                                    fs sec ws prot spawn lo bind ext ctl env unr */
	{ "none", "the command may not even start", false,
		ROW(D, D, D, D, D, D, D, D, D, D, D) },
	{ "readonly", "read and run programs; change nothing", false,
		ROW(A, D, D, D, A, D, D, D, D, D, D) },
	{ "verify", "build and test inside the workspace; ask before the network", false,
		ROW(A, D, A, D, A, A, D, Q, D, D, D) },
	{ "repair", "edit the workspace; no network at all", false,
		ROW(A, D, A, D, A, D, D, D, D, D, D) },
	{ "observe", "allow everything, record it, flag secret reads and protected writes", true,
		ROW(A, A, A, A, A, A, A, A, A, A, A) },
};

#undef A
#undef D
#undef Q
#undef ROW

const char *const cw_builtin_profile_names[CW_BUILTIN__COUNT + 1] = {
	"none", "readonly", "verify", "repair", "observe", NULL,
};

int cw_profile_builtin(const char *name, cw_profile **out)
{
	if (!name || !out)
		return -EINVAL;
	for (size_t i = 0; i < CW_BUILTIN__COUNT; i++) {
		const struct cw_builtin *b = &cw_builtins[i];
		if (strcmp(b->name, name) != 0)
			continue;
		cw_profile *p = calloc(1, sizeof *p);
		if (!p)
			return -ENOMEM;
		p->name = strdup(b->name);
		p->notes = strdup(b->notes);
		if (!p->name || !p->notes) {
			cw_profile_free(p);
			return -ENOMEM;
		}
		p->flag_sensitive = b->flag_sensitive;
		for (int s = 0; s < CW_SLOT__COUNT; s++)
			p->slot[s].def = b->verdict[s];
		*out = p;
		return 0;
	}
	return -ENOENT;
}
