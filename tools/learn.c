/* capwatch learn: a least-privilege profile from a recorded run.
 *
 * Every operation the run performed becomes an allow scope of its slot,
 * generalised where a glob says the same thing more simply; everything the
 * run did not do stays denied. The result is checked before it is printed:
 * it is parsed with cw_profile_parse and every distinct recorded operation is
 * re-decided under it with cw_policy_decide. Where a decision still differs
 * (a rename's second path, a base profile's deny entry), the profile is
 * corrected and checked again, so that replaying the run under its learned
 * profile denies nothing. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>

#include "policy/policy.h"
#include "policy/trace.h"
#include "tools/common.h"
#include "tools/tools.h"

static const char usage_text[] =
	"Usage: capwatch learn [--base NAME|FILE] [--name NAME] [--include-denied] TRACE.jsonl > profile.json\n"
	"\n"
	"Write to stdout a least-privilege JSON profile (capwatch-profile(5)) that\n"
	"allows exactly what the recorded run did and denies everything else:\n"
	"  - files in one directory become \"DIR/*\"; many directories under a\n"
	"    workspace root become \"ROOT/**\"; wide trees elsewhere (4 or more\n"
	"    directories below e.g. /usr/lib) become \"DIR/**\"; secret files stay exact;\n"
	"  - /proc/PID/... becomes /proc/*/... (pids change from run to run), and paths\n"
	"    under the home directory are written \"~/...\" (they follow the user);\n"
	"  - programs are allowed by path, addresses as ADDR:PORT;\n"
	"  - every capability carries \"notes\" saying why its rule is there.\n"
	"Operations recorded under --observe (decision deny, not enforced) are\n"
	"included: they happened. Operations that were denied and enforced did not\n"
	"happen and are left out unless --include-denied is given.\n"
	"The profile is verified before it is printed: replaying the trace under it\n"
	"denies nothing.\n"
	"\n"
	"Options:\n"
	"  --base NAME|FILE   extend this profile; add only what it does not already allow\n"
	"                     (a FILE is written to \"extends\" as given: a relative path is\n"
	"                     read from the directory of the learned profile)\n"
	"  --name NAME        the profile's name (default \"learned\")\n"
	"  --include-denied   also allow operations that were denied and enforced\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit status: 0 success; 1 the profile was printed but still denies some\n"
	"recorded operation (listed on stderr); 2 bad trace; 125 usage error or bad\n"
	"base profile.\n";

/* Generalisation thresholds: directories under a workspace root before the
 * whole root is allowed; directories below a deep directory before its whole
 * tree is allowed; files in one directory before the directory's entries are
 * allowed (see the --help text for the glob forms). */
#define ROOT_MIN_DIRS 2
#define TREE_MIN_DIRS 4
#define DIR_MIN_FILES 2
#define NOTE_PROGRAMS 5

struct learn {
	const char *file, *basearg, *name;
	bool include_denied;
	cw_profile *base;
	struct cw_context ctx;
	bool have_ctx;
	struct cw_tool_run run;
	struct cw_sset scopes[CW_SLOT__COUNT];   /* exact scopes seen */
	struct cw_sset asked[CW_SLOT__COUNT];    /* refused asks: stay asks */
	struct cw_sset progs[CW_SLOT__COUNT];    /* program names per slot */
	unsigned long uses[CW_SLOT__COUNT];
	unsigned long pid_control, odd_scopes[CW_SLOT__COUNT];
	unsigned long ops, excluded, base_allowed, bad;
	struct cw_sset sample_keys;
	cJSON *samples;                          /* distinct op events, for the check */
	int fatal;
};

static int on_header(void *opaque, const cJSON *hdr, unsigned long lineno)
{
	struct learn *L = opaque;
	char err[512];

	L->run.header = cJSON_Duplicate(hdr, 1);
	if (cw_trace_header_to_context(L->run.header, &L->ctx, err, sizeof(err)) < 0) {
		cw_tool_msg("%s:%lu: %s", L->file, lineno, err);
		L->fatal = CW_TOOL_EXIT_BADINPUT;
		return 1;
	}
	L->have_ctx = true;
	return 0;
}

static int slot_of(const cJSON *ev, int *slot)
{
	const char *cap = cw_j_str(ev, "capability");
	int k;

	if (!cap || !strcmp(cap, "none"))
		return -ENOENT;
	k = cw_cap_from_name(cap);
	if (k < 0)
		return -EINVAL;
	*slot = k == CW_CAP_FILESYSTEM_READ && cw_j_bool(ev, "secret", false) ? CW_SLOT_SECRET_READ : k;
	return 0;
}

/* Record one use of SCOPE in SLOT by PROG. */
static int add_use(struct learn *L, int slot, const char *scope, const char *prog)
{
	if (!cw_sset_bump(&L->scopes[slot], scope) || !cw_sset_bump(&L->progs[slot], prog ? prog : "?"))
		return -ENOMEM;
	L->uses[slot]++;
	return 0;
}

static int add_sample(struct learn *L, const cJSON *ev, int slot, const char *scope)
{
	char key[CW_SCOPE_MAX + 16];
	struct cw_sset_ent *e;

	snprintf(key, sizeof(key), "%d\t%s\t%s", slot, cw_j_str(ev, "op") ? cw_j_str(ev, "op") : "", scope);
	e = cw_sset_get(&L->sample_keys, key, true);
	if (!e)
		return -ENOMEM;
	if (e->count++)
		return 0;
	/* keep only what cw_trace_event_to_op reads: a large trace has many
	 * distinct operations */
	{
		static const char *const keep[] = {
			"type", "op", "syscall", "resolved", "resolved_hex", "resolved2", "resolved2_hex",
			"args", "host", "target_pid", "target_in_tree", "env_names", NULL,
		};
		cJSON *t = cJSON_CreateObject();
		size_t i;

		if (!t)
			return -ENOMEM;
		for (i = 0; keep[i]; i++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, keep[i]);

			if (!v)
				continue;
			if (!strcmp(keep[i], "args")) {
				/* of the raw arguments only the address is used */
				cJSON *a = cJSON_AddObjectToObject(t, "args");
				const cJSON *ad = cJSON_GetObjectItemCaseSensitive(v, "addr");
				const cJSON *ah = cJSON_GetObjectItemCaseSensitive(v, "addr_hex");

				if (a && ad)
					cJSON_AddItemToObject(a, "addr", cJSON_Duplicate(ad, 1));
				if (a && ah)
					cJSON_AddItemToObject(a, "addr_hex", cJSON_Duplicate(ah, 1));
				continue;
			}
			cJSON_AddItemToObject(t, keep[i], cJSON_Duplicate(v, 1));
		}
		cJSON_AddItemToArray(L->samples, t);
	}
	return 0;
}

static char *path_glob(const char *path);

/* Who did it: the process's program, or for a process that has not executed
 * anything yet (a fork about to exec) its parent's. */
static const char *prog_of(struct learn *L, int pid)
{
	struct cw_tproc *p = cw_tool_run_find(&L->run, pid);

	if (p && !p->exe && !p->argv && p->ppid >= 0) {
		struct cw_tproc *pp = cw_tool_run_find(&L->run, p->ppid);

		if (pp)
			return cw_tproc_name(pp);
	}
	return p ? cw_tproc_name(p) : "?";
}

/* rename/link write both ends, but the trace's scope names only the one
 * that decided; the other is learned here as the write it is (its
 * capability depends on where it lies, not on the profile). */
static int add_second_path(struct learn *L, const cJSON *ev, const char *prog)
{
	const char *kind = cw_j_str(ev, "op");
	char *to;
	struct cw_op op = { .kind = CW_OP_FS_WRITE, .syscall = "rename" };
	struct cw_decision d;
	cw_profile *all = NULL;
	int slot, r = 0;

	if (!kind || strcmp(kind, "rename") || !(to = cw_j_bytes(ev, "resolved2")))
		return 0;
	if (to[0] == '/' && cw_profile_builtin("observe", &all) == 0) {
		op.path = to;
		memset(&d, 0, sizeof(d));
		cw_policy_decide(all, &L->ctx, &op, &d);
		if (d.cap != CW_CAP_NONE && d.scope[0] == '/') {
			slot = d.cap == CW_CAP_FILESYSTEM_READ && d.secret ? CW_SLOT_SECRET_READ : (int)d.cap;
			if (!cw_sset_get(&L->scopes[slot], d.scope, false))
				r = add_use(L, slot, d.scope, prog);
		}
		cw_profile_free(all);
	}
	free(to);
	return r;
}

static int on_op(struct learn *L, const cJSON *ev, unsigned long lineno)
{
	const char *dec = cw_j_str(ev, "decision");
	const char *prog = prog_of(L, cw_j_int(ev, "pid", -1));
	char *scope;
	int slot, r;

	L->ops++;
	r = slot_of(ev, &slot);
	if (r == 0 && slot == CW_CAP_PROCESS_SPAWN && !strcmp(prog, "?"))
		prog = "(start of the command)";
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		L->bad++;
		cw_tool_msg("%s:%lu: unknown capability; line skipped", L->file, lineno);
		return 0;
	}
	if (dec && strcmp(dec, "allow") && cw_j_bool(ev, "enforced", true) && !L->include_denied) {
		/* refused and enforced: it did not happen, so it is not allowed.
		 * A refused ask stays an ask, so that the learned profile takes
		 * the recorded decision again (and prompts where it can). */
		L->excluded++;
		if ((!strcmp(dec, "ask") || (cw_j_str(ev, "profile_decision") &&
					      !strcmp(cw_j_str(ev, "profile_decision"), "ask"))) &&
		    (scope = cw_j_bytes(ev, "scope"))) {
			char *fx = scope[0] == '/' ? path_glob(scope) : cw_tool_utf8_fix(scope, '?');

			r = fx && cw_sset_bump(&L->asked[slot], fx) ? 0 : -ENOMEM;
			free(fx);
			free(scope);
			return r;
		}
		return 0;
	}
	if (L->base) {
		struct cw_op op;
		struct cw_op_storage stg;
		struct cw_decision d;
		char err[256];

		if (cw_trace_event_to_op(ev, &op, &stg, err, sizeof(err)) < 0) {
			L->bad++;
			cw_tool_msg("%s:%lu: %s; line skipped", L->file, lineno, err);
			return 0;
		}
		cw_policy_decide(L->base, &L->ctx, &op, &d);
		cw_op_storage_free(&stg);
		if (d.verdict == CW_ALLOW) {
			L->base_allowed++;
			return 0;
		}
	}
	scope = cw_j_bytes(ev, "scope");
	if (!scope) {
		L->bad++;
		cw_tool_msg("%s:%lu: operation without a scope; line skipped", L->file, lineno);
		return 0;
	}
	if (slot == CW_CAP_PROCESS_CONTROL && strncmp(scope, "unix:", 5)) {
		/* a pid: pids are not scoped in profiles */
		L->pid_control++;
		r = add_use(L, slot, "", prog);
	} else if (slot == CW_CAP_ENVIRONMENT) {
		char *save = NULL, *tok;

		for (tok = strtok_r(scope, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if ((r = add_use(L, slot, tok, prog)) < 0)
				break;
	} else
		r = add_use(L, slot, scope, prog);
	if (r == 0)
		r = add_sample(L, ev, slot, scope);
	if (r == 0)
		r = add_second_path(L, ev, prog);
	free(scope);
	return r;
}

static int on_exec(struct learn *L, const cJSON *ev)
{
	char *exe = cw_j_bytes(ev, "exe");
	struct cw_tproc *p = cw_tool_run_find(&L->run, cw_j_int(ev, "pid", -1));
	cJSON *fake;
	int r = 0;

	if (!exe)
		return 0;
	if (cw_sset_get(&L->scopes[CW_CAP_PROCESS_SPAWN], exe, false)) {
		free(exe); /* its exec was recorded as an operation already */
		return 0;
	}
	/* The program ran, so the profile must let it start even if the exec
	 * itself was not recorded as an operation (the first one may not be). */
	if (L->base) {
		struct cw_op op = { .kind = CW_OP_EXEC, .syscall = "execve", .path = exe };
		struct cw_decision d;

		cw_policy_decide(L->base, &L->ctx, &op, &d);
		if (d.verdict == CW_ALLOW) {
			free(exe);
			return 0;
		}
	}
	r = add_use(L, CW_CAP_PROCESS_SPAWN, exe, p ? cw_tproc_name(p) : "?");
	fake = cJSON_CreateObject();
	if (fake && !r) {
		cJSON_AddStringToObject(fake, "type", "op");
		cJSON_AddStringToObject(fake, "op", "exec");
		cJSON_AddStringToObject(fake, "syscall", "execve");
		cJSON_AddStringToObject(fake, "resolved", exe);
		{
			/* the hex twin keeps bytes that are not UTF-8 exact */
			size_t n = strlen(exe), i;
			char *hex = malloc(2 * n + 1);

			if (hex) {
				for (i = 0; i < n; i++)
					sprintf(hex + 2 * i, "%02x", (unsigned char)exe[i]);
				cJSON_AddStringToObject(fake, "resolved_hex", hex);
				free(hex);
			}
		}
		r = add_sample(L, fake, CW_CAP_PROCESS_SPAWN, exe);
	}
	cJSON_Delete(fake);
	free(exe);
	return r;
}

static int on_event(void *opaque, const cJSON *ev, unsigned long lineno)
{
	struct learn *L = opaque;
	const char *type = cw_j_str(ev, "type");
	int r = cw_tool_run_add(&L->run, ev);

	if (r < 0)
		return r;
	if (!type)
		return 0;
	if (!strcmp(type, "op"))
		return on_op(L, ev, lineno);
	if (!strcmp(type, "exec"))
		return on_exec(L, ev);
	return 0;
}

/* ---- generalisation ---- */

/* A path as a glob that matches exactly it: '*', '?', '\' escaped; bytes of
 * invalid UTF-8 become '?' (one byte, any value but '/'); the pid component
 * of /proc/PID/... becomes '*'. */
static char *path_glob(const char *path)
{
	char *fixed = cw_tool_utf8_fix(path, '\x01'), *out, *o;
	const char *s;

	if (!fixed)
		return NULL;
	out = malloc(2 * strlen(fixed) + 2);
	if (!out) {
		free(fixed);
		return NULL;
	}
	o = out;
	s = fixed;
	if (!strncmp(s, "/proc/", 6) && s[6] >= '0' && s[6] <= '9') {
		const char *e = s + 6;

		while (*e >= '0' && *e <= '9')
			e++;
		if (*e == '/' || *e == '\0') {
			memcpy(o, "/proc/*", 7);
			o += 7;
			s = e;
		}
	}
	for (; *s; s++) {
		if (*s == '\x01')
			*o++ = '?';
		else {
			if (*s == '*' || *s == '?' || *s == '\\')
				*o++ = '\\';
			*o++ = *s;
		}
	}
	*o = '\0';
	free(fixed);
	return out;
}

static size_t depth_of(const char *dir)
{
	size_t d = 0;

	for (; *dir; dir++)
		d += *dir == '/' && dir[1];
	return d;
}

static int add_pattern(struct cw_sset *out, const char *pat, unsigned long count)
{
	struct cw_sset_ent *e = cw_sset_get(out, pat, true);

	if (!e)
		return -ENOMEM;
	e->count += count;
	return 0;
}

/* The exact globs of the scopes IN, with their uses. */
static int exact_globs(const struct cw_sset *in, struct cw_sset *globs)
{
	size_t i;

	for (i = 0; i < in->n; i++) {
		char *g = path_glob(in->ents[i].key);
		struct cw_sset_ent *e;

		if (!g)
			return -ENOMEM;
		e = cw_sset_get(globs, g, true);
		free(g);
		if (!e)
			return -ENOMEM;
		e->count += in->ents[i].count;
	}
	return 0;
}

/* Is glob K (not yet consumed) at or below the root glob RG of length RL? */
static bool under_root(const struct cw_sset_ent *k, const char *rg, size_t rl)
{
	return !k->aux && !strncmp(k->key, rg, rl) &&
	       (k->key[rl] == '/' || k->key[rl] == '\0' || !strcmp(rg, "/"));
}

/* A workspace root with files in several directories: all of it. The
 * globs it takes are marked with aux = 1. */
static int take_root(struct cw_sset *globs, const char *root, struct cw_sset *out)
{
	char *rg = path_glob(root), *pat;
	struct cw_sset rdirs = { 0 };
	size_t i, rl;
	int r = 0;

	if (!rg)
		return -ENOMEM;
	rl = strlen(rg);
	for (i = 0; i < globs->n; i++) {
		char *d;

		if (!under_root(&globs->ents[i], rg, rl))
			continue;
		d = cw_tool_dirname(globs->ents[i].key);
		if (!d || !cw_sset_get(&rdirs, d, true))
			r = -ENOMEM;
		free(d);
	}
	if (!r && (rdirs.n >= ROOT_MIN_DIRS)) {
		pat = malloc(rl + 4);
		if (pat) {
			sprintf(pat, "%s/**", strcmp(rg, "/") ? rg : "");
			for (i = 0; i < globs->n; i++) {
				if (!under_root(&globs->ents[i], rg, rl))
					continue;
				globs->ents[i].aux = 1;
				if (add_pattern(out, pat, globs->ents[i].count) < 0)
					r = -ENOMEM;
			}
			free(pat);
		} else
			r = -ENOMEM;
	}
	cw_sset_free(&rdirs, NULL);
	free(rg);
	return r;
}

/* The distinct parent directories of the globs left, with the files in
 * each (DIRS), and for each ancestor of depth >= 2 how many of them lie
 * below it (ANC). */
static int count_dirs(const struct cw_sset *globs, struct cw_sset *dirs, struct cw_sset *anc)
{
	size_t i;

	for (i = 0; i < globs->n; i++) {
		struct cw_sset_ent *e;
		char *d;

		if (globs->ents[i].aux)
			continue;
		d = cw_tool_dirname(globs->ents[i].key);
		if (!d)
			return -ENOMEM;
		e = cw_sset_get(dirs, d, true);
		if (!e) {
			free(d);
			return -ENOMEM;
		}
		if (e->count++ == 0) {
			/* first file in this directory: count it under each ancestor */
			char *a = strdup(d);

			while (a && depth_of(a) >= 2) {
				char *slash;

				if (!cw_sset_bump(anc, a))
					break;
				slash = strrchr(a, '/');
				if (!slash || slash == a)
					break;
				*slash = '\0';
			}
			free(a);
		}
		free(d);
	}
	return 0;
}

/* The pattern for the glob K (COUNT uses): the shallowest ancestor that
 * holds a wide tree, else its directory when that holds many files, else
 * K itself. */
static int widen(const char *k, unsigned long count, struct cw_sset *dirs, struct cw_sset *anc,
		 struct cw_sset *out)
{
	struct cw_sset_ent *de;
	char *d, *a, *best = NULL, *pat;
	int r;

	d = cw_tool_dirname(k);
	if (!d)
		return -ENOMEM;
	/* the shallowest ancestor that holds a wide tree */
	a = strdup(d);
	while (a && depth_of(a) >= 2) {
		struct cw_sset_ent *ae = cw_sset_get(anc, a, false);
		char *slash;

		if (ae && ae->count >= TREE_MIN_DIRS) {
			free(best);
			best = strdup(a);
		}
		slash = strrchr(a, '/');
		if (!slash || slash == a)
			break;
		*slash = '\0';
	}
	free(a);
	de = cw_sset_get(dirs, d, false);
	pat = malloc(strlen(d) + strlen(k) + 4);
	if (!pat) {
		free(best);
		free(d);
		return -ENOMEM;
	}
	if (best)
		sprintf(pat, "%s/**", best);
	else if (de && de->count >= DIR_MIN_FILES)
		sprintf(pat, "%s/*", strcmp(d, "/") ? d : "");
	else
		strcpy(pat, k);
	r = add_pattern(out, pat, count);
	free(pat);
	free(best);
	free(d);
	return r;
}

/* Generalise the path scopes of SLOT into OUT (glob -> uses). */
static int generalise_paths(struct learn *L, int slot, struct cw_sset *out)
{
	struct cw_sset globs = { 0 }, dirs = { 0 }, anc = { 0 };
	bool use_roots = slot == CW_CAP_FILESYSTEM_READ || slot == CW_CAP_WORKSPACE_WRITE;
	size_t i, j;
	int r;

	/* exact globs; consumed ones are marked with aux = 1 */
	r = exact_globs(&L->scopes[slot], &globs);
	if (r)
		goto out;
	if (slot == CW_SLOT_SECRET_READ || slot == CW_CAP_PROCESS_SPAWN) {
		for (i = 0; i < globs.n; i++)
			if ((r = add_pattern(out, globs.ents[i].key, globs.ents[i].count)) < 0)
				goto out;
		goto out;
	}
	for (j = 0; use_roots && j < L->ctx.nroots; j++)
		if ((r = take_root(&globs, L->ctx.roots[j], out)) < 0)
			goto out;
	r = count_dirs(&globs, &dirs, &anc);
	if (r)
		goto out;
	for (i = 0; i < globs.n; i++) {
		if (globs.ents[i].aux)
			continue;
		r = widen(globs.ents[i].key, globs.ents[i].count, &dirs, &anc, out);
		if (r)
			goto out;
	}
out:
	cw_sset_free(&globs, NULL);
	cw_sset_free(&dirs, NULL);
	cw_sset_free(&anc, NULL);
	return r;
}

static bool path_slot(int slot)
{
	return slot == CW_CAP_FILESYSTEM_READ || slot == CW_SLOT_SECRET_READ ||
	       slot == CW_CAP_WORKSPACE_WRITE || slot == CW_CAP_PROTECTED_METADATA ||
	       slot == CW_CAP_PROCESS_SPAWN || slot == CW_CAP_UNRESTRICTED;
}

static bool scope_expressible(int slot, const char *scope);

/* Scopes of SLOT as profile patterns (glob -> uses). */
static int patterns_of(struct learn *L, int slot, struct cw_sset *out)
{
	struct cw_sset *in = &L->scopes[slot], paths = { 0 };
	size_t i;
	int r = 0;

	if (path_slot(slot)) {
		/* unrestricted also holds syscall names: those stay exact */
		struct cw_sset keep = L->scopes[slot];

		for (i = 0; i < in->n; i++) {
			const char *k = in->ents[i].key;

			if (k[0] == '/') {
				struct cw_sset_ent *e = cw_sset_get(&paths, k, true);

				if (!e) {
					r = -ENOMEM;
					break;
				}
				e->count += in->ents[i].count;
			} else if (slot == CW_CAP_UNRESTRICTED && scope_expressible(slot, k)) {
				char *fx = cw_tool_utf8_fix(k, '?');

				if (!fx || add_pattern(out, fx, in->ents[i].count) < 0)
					r = -ENOMEM;
				free(fx);
			} else
				L->odd_scopes[slot]++;
		}
		if (!r) {
			L->scopes[slot] = paths;
			r = generalise_paths(L, slot, out);
			L->scopes[slot] = keep;
		}
		cw_sset_free(&paths, NULL);
		return r;
	}
	for (i = 0; i < in->n; i++) {
		const char *k = in->ents[i].key;
		char *fx;

		if (!k[0])
			continue; /* pid-scoped process_control: handled by the default */
		if (!scope_expressible(slot, k)) {
			L->odd_scopes[slot]++;
			continue;
		}
		fx = cw_tool_utf8_fix(k, '?');
		if (!fx || add_pattern(out, fx, in->ents[i].count) < 0)
			r = -ENOMEM;
		free(fx);
		if (r)
			break;
	}
	return r;
}

/* A path pattern under the run's home directory, written "~/..." so that
 * the profile follows the user (globs expand "~/" to the home of the run).
 * NULL when PAT is not under home (or on ENOMEM: the absolute form is kept). */
static char *home_rel(struct learn *L, const char *pat)
{
	char *hg, *out = NULL;
	size_t hl;

	if (!L->ctx.home || strlen(L->ctx.home) < 2 || pat[0] != '/')
		return NULL;
	hg = path_glob(L->ctx.home);
	if (!hg)
		return NULL;
	hl = strlen(hg);
	while (hl > 1 && hg[hl - 1] == '/')
		hl--;
	if (!strncmp(pat, hg, hl) && pat[hl] == '/' && asprintf(&out, "~%s", pat + hl) < 0)
		out = NULL;
	free(hg);
	return out;
}

static int cmp_count_desc(const void *a, const void *b)
{
	const struct cw_sset_ent *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* "seen 12 times: gcc x8, cc1 x4" */
static char *slot_note(struct learn *L, int slot)
{
	struct cw_sset *ps = &L->progs[slot];
	struct cw_sset_ent *v = malloc((ps->n + 1) * sizeof(*v));
	char buf[1024], *fx;
	size_t i, o;

	if (!v)
		return NULL;
	memcpy(v, ps->ents, ps->n * sizeof(*v));
	qsort(v, ps->n, sizeof(*v), cmp_count_desc);
	o = (size_t)snprintf(buf, sizeof(buf), "seen %lu time%s: ", L->uses[slot], L->uses[slot] == 1 ? "" : "s");
	for (i = 0; i < ps->n && i < NOTE_PROGRAMS && o < sizeof(buf); i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%.60s%s", i ? ", " : "", v[i].key,
				      ps->n > 1 ? "" : "");
	if (ps->n > NOTE_PROGRAMS && o < sizeof(buf))
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, ", ... and %zu more", ps->n - NOTE_PROGRAMS);
	if (slot == CW_CAP_PROCESS_CONTROL && L->pid_control && o < sizeof(buf))
		o += (size_t)snprintf(buf + o, sizeof(buf) - o,
				      "; %lu signal/trace operations aimed outside the tree: pids cannot be "
				      "scoped, so the default is allow", L->pid_control);
	if (L->odd_scopes[slot] && o < sizeof(buf))
		snprintf(buf + o, sizeof(buf) - o,
			 "; %lu scopes cannot be written as profile scopes, so the default is allow",
			 L->odd_scopes[slot]);
	free(v);
	fx = cw_tool_utf8_fix(buf, '?');
	return fx;
}

/* The base profile's lists for SLOT, from its expanded JSON. */
static cJSON *base_slot(struct learn *L, cJSON *basejson, int slot)
{
	cJSON *caps = cJSON_GetObjectItemCaseSensitive(basejson, "capabilities");

	(void)L;
	return cJSON_GetObjectItemCaseSensitive(caps, cw_slot_name(slot));
}

/* The profile's "notes": where it was learned from, and how. */
static void build_notes(struct learn *L, cJSON *root)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(L->run.header, "command");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(c, "args"), *it;
	char notes[2048], *cmd, *fx;
	char *v[8] = { 0 };
	size_t n = 0;

	v[n++] = (char *)(cw_j_str(c, "name") ? cw_j_str(c, "name") : "?");
	cJSON_ArrayForEach(it, args)
		if (cJSON_IsString(it) && n < 7)
			v[n++] = it->valuestring;
	cmd = cw_tool_argv_join(v, 120);
	snprintf(notes, sizeof(notes),
		 "Learned by capwatch learn from %.200s: `%.200s` recorded under profile \"%.64s\" "
		 "(%lu operations, %zu processes). Allows what the run did%s; %s.%s%s",
		 L->file, cmd ? cmd : "?", cw_j_str(L->run.header, "profile") ? cw_j_str(L->run.header, "profile") : "?",
		 L->ops, L->run.nprocs,
		 L->basearg ? " beyond its base profile" : "",
		 L->basearg ? "everything else is as in the base" : "everything it did not do is denied",
		 L->excluded ? " Operations denied and enforced when recorded were left out: " : "",
		 L->excluded ? "use --include-denied to allow them." : "");
	free(cmd);
	fx = cw_tool_utf8_fix(notes, '?');
	cJSON_AddStringToObject(root, "notes", fx ? fx : "");
	free(fx);
}

/* SLOT's "ask" list: the base's asks the run was not refused, then what it
 * asked for and was refused, sorted. */
static void add_asks(struct learn *L, cJSON *basejson, int slot, cJSON *ask)
{
	const cJSON *bs = basejson ? base_slot(L, basejson, slot) : NULL, *it;
	size_t i;

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(bs, "ask"))
		if (cJSON_IsString(it) && !cw_sset_get(&L->asked[slot], it->valuestring, false))
			cJSON_AddItemToArray(ask, cJSON_CreateString(it->valuestring));
	cw_sset_sort(&L->asked[slot]);
	for (i = 0; i < L->asked[slot].n; i++)
		cJSON_AddItemToArray(ask, cJSON_CreateString(L->asked[slot].ents[i].key));
}

/* SLOT's entry under CAPS: what the run used, generalised, over the base. */
static int build_slot(struct learn *L, cJSON *basejson, cJSON *caps, int slot)
{
	struct cw_sset pats = { 0 };
	cJSON *o, *allow;
	char *note;
	size_t i;

	if (!L->uses[slot] && L->asked[slot].n) {
		/* only refused asks: keep them asks, deny the rest */
		o = cJSON_AddObjectToObject(caps, cw_slot_name(slot));
		if (!L->basearg)
			cJSON_AddStringToObject(o, "default", "deny");
		add_asks(L, basejson, slot, cJSON_AddArrayToObject(o, "ask"));
		cJSON_AddStringToObject(o, "notes", "not used in the recorded run; what it asked for and "
					"was refused still asks");
		return 0;
	}
	if (!L->uses[slot]) {
		if (!L->basearg) {
			o = cJSON_AddObjectToObject(caps, cw_slot_name(slot));
			cJSON_AddStringToObject(o, "default", "deny");
			cJSON_AddStringToObject(o, "notes", "not used in the recorded run");
		}
		return 0;
	}
	if (patterns_of(L, slot, &pats) < 0) {
		cw_sset_free(&pats, NULL);
		return -ENOMEM;
	}
	cw_sset_sort(&pats);
	o = cJSON_AddObjectToObject(caps, cw_slot_name(slot));
	if (!L->basearg || (slot == CW_CAP_PROCESS_CONTROL && L->pid_control) || L->odd_scopes[slot])
		cJSON_AddStringToObject(o, "default",
					(slot == CW_CAP_PROCESS_CONTROL && L->pid_control) ||
					L->odd_scopes[slot] ? "allow" : "deny");
	allow = cJSON_AddArrayToObject(o, "allow");
	if (basejson) {
		const cJSON *bs = base_slot(L, basejson, slot);
		const cJSON *ba = cJSON_GetObjectItemCaseSensitive(bs, "allow"), *it;

		cJSON_ArrayForEach(it, ba)
			if (cJSON_IsString(it) && !cw_sset_get(&pats, it->valuestring, false))
				cJSON_AddItemToArray(allow, cJSON_CreateString(it->valuestring));
	}
	for (i = 0; i < pats.n; i++) {
		char *hp = home_rel(L, pats.ents[i].key);

		cJSON_AddItemToArray(allow, cJSON_CreateString(hp ? hp : pats.ents[i].key));
		free(hp);
	}
	if (L->asked[slot].n)
		add_asks(L, basejson, slot, cJSON_AddArrayToObject(o, "ask"));
	note = slot_note(L, slot);
	cJSON_AddStringToObject(o, "notes", note ? note : "");
	free(note);
	cw_sset_free(&pats, NULL);
	return 0;
}

static cJSON *build(struct learn *L, cJSON *basejson)
{
	cJSON *root = cJSON_CreateObject(), *caps;
	int slot;

	if (!root)
		return NULL;
	cJSON_AddStringToObject(root, "name", L->name);
	if (L->basearg)
		cJSON_AddStringToObject(root, "extends", L->basearg);
	build_notes(L, root);
	caps = cJSON_AddObjectToObject(root, "capabilities");
	for (slot = 0; slot < CW_SLOT__COUNT; slot++)
		if (build_slot(L, basejson, caps, slot) < 0) {
			cJSON_Delete(root);
			return NULL;
		}
	return root;
}

/* The slot object of SLOT in the profile under construction, created (with
 * the base's allow list) when missing. */
static cJSON *slot_obj(cJSON *root, cJSON *basejson, int slot, struct learn *L)
{
	cJSON *caps = cJSON_GetObjectItemCaseSensitive(root, "capabilities");
	cJSON *o = cJSON_GetObjectItemCaseSensitive(caps, cw_slot_name(slot));

	if (o && !cJSON_IsObject(o)) {
		cJSON_DeleteItemFromObjectCaseSensitive(caps, cw_slot_name(slot));
		o = NULL;
	}
	if (!o) {
		const cJSON *bs = basejson ? base_slot(L, basejson, slot) : NULL;
		const cJSON *ba = cJSON_GetObjectItemCaseSensitive(bs, "allow");

		o = cJSON_AddObjectToObject(caps, cw_slot_name(slot));
		if (!o)
			return NULL;
		if (!basejson)
			cJSON_AddStringToObject(o, "default", "deny");
		cJSON_AddItemToObject(o, "allow", ba ? cJSON_Duplicate(ba, 1) : cJSON_CreateArray());
		cJSON_AddStringToObject(o, "notes", "added to allow what the run did");
	}
	return o;
}

/* Can SCOPE (an operation's scope in SLOT) be written as a profile scope
 * that matches it? (see cw_scope_invalid in the policy library) */
static bool scope_expressible(int slot, const char *scope)
{
	struct sockaddr_storage ss;
	size_t len;

	if (!scope[0])
		return false;
	switch (slot) {
	case CW_CAP_PROCESS_CONTROL:
		return !strncmp(scope, "unix:", 5);
	case CW_CAP_ISOLATED_LOOPBACK:
	case CW_CAP_HOST_VISIBLE_BINDING:
	case CW_CAP_EXTERNAL_NETWORK:
		return !strncmp(scope, "unix:", 5) || cw_addr_parse(scope, &ss, &len) == 0;
	case CW_CAP_ENVIRONMENT:
		return strspn(scope, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_,") ==
		       strlen(scope);
	case CW_CAP_UNRESTRICTED:
		return scope[0] == '/' ||
		       strspn(scope, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
		       strlen(scope);
	default:
		return scope[0] == '/';
	}
}

/* "still denies ...": the report of a sample the final profile does not allow. */
static void report_still_denied(const struct cw_decision *d)
{
	char msg[CW_SCOPE_MAX + 400];
	char *fx;

	snprintf(msg, sizeof(msg), "learn: the learned profile still denies %s %s (%s)",
		 cw_cap_name(d->cap), d->scope, d->rule);
	fx = cw_tool_utf8_fix(msg, '?');
	fflush(stdout);
	fputs("capwatch: ", stderr);
	cw_tool_put(stderr, fx ? fx : msg);
	fputc('\n', stderr);
	free(fx);
}

/* A deny/ask entry (from the base) matches what the run did: materialise
 * the list (LST: the rule's ":deny[N]" or ":ask[N]") in the child O and
 * put a placeholder where that entry was. */
static void drop_base_entry(struct learn *L, cJSON *o, cJSON *basejson, int slot, const char *lst,
			    bool *changed)
{
	bool isdeny = lst[1] == 'd';
	const char *lname = isdeny ? "deny" : "ask";
	long idx = strtol(strchr(lst, '[') + 1, NULL, 10);
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, lname);

	if (!arr) {
		const cJSON *bs = basejson ? base_slot(L, basejson, slot) : NULL;
		const cJSON *bl = cJSON_GetObjectItemCaseSensitive(bs, lname);

		arr = bl ? cJSON_Duplicate(bl, 1) : cJSON_CreateArray();
		cJSON_AddItemToObject(o, lname, arr);
	}
	if (idx >= 0 && idx < cJSON_GetArraySize(arr)) {
		const cJSON *old = cJSON_GetArrayItem(arr, (int)idx);
		const char *was = cw_j_str(o, "notes");
		char *note = NULL;

		if (cJSON_IsString(old) && strcmp(old->valuestring, "/\x01removed") &&
		    asprintf(&note, "%s; dropped the base's %s entry \"%s\": the run needed it",
			     was ? was : "", lname, old->valuestring) >= 0) {
			cJSON_DeleteItemFromObjectCaseSensitive(o, "notes");
			cJSON_AddStringToObject(o, "notes", note);
		}
		free(note);
		cJSON_ReplaceItemInArray(arr, (int)idx, cJSON_CreateString("/\x01removed"));
		*changed = true;
	}
}

/* Add PAT to the array ALLOW unless it is there. */
static void allow_once(cJSON *allow, const char *pat, bool *changed)
{
	const cJSON *it;
	bool have = false;

	cJSON_ArrayForEach(it, allow)
		have |= cJSON_IsString(it) && !strcmp(it->valuestring, pat);
	if (!have) {
		cJSON_AddItemToArray(allow, cJSON_CreateString(pat));
		*changed = true;
	}
}

/* The default decided: allow this exact SCOPE in the slot object O. */
static void allow_scope(cJSON *o, int slot, const char *scope, bool *changed)
{
	cJSON *allow = cJSON_GetObjectItemCaseSensitive(o, "allow");
	char *pat;

	if (!allow) {
		allow = cJSON_CreateArray();
		cJSON_AddItemToObject(o, "allow", allow);
	}
	if (!scope_expressible(slot, scope)) {
		/* no profile scope says exactly this (a pid, an odd
		 * address): only the default can allow it */
		cJSON_DeleteItemFromObjectCaseSensitive(o, "default");
		cJSON_AddStringToObject(o, "default", "allow");
		*changed = true;
		return;
	}
	if (slot == CW_CAP_ENVIRONMENT) {
		/* one pattern per variable name */
		char *names = strdup(scope), *save = NULL, *tok;

		for (tok = names ? strtok_r(names, ",", &save) : NULL; tok;
		     tok = strtok_r(NULL, ",", &save))
			allow_once(allow, tok, changed);
		free(names);
		return;
	}
	pat = scope[0] == '/' ? path_glob(scope) : cw_tool_utf8_fix(scope, '?');
	if (pat) {
		allow_once(allow, pat, changed);
		free(pat);
	}
}

/* Change the candidate ROOT so that it allows what D did not. */
static void fix_denial(struct learn *L, cJSON *root, cJSON *basejson, const struct cw_decision *d,
		       bool *changed)
{
	const char *lst;
	cJSON *o;
	int slot;

	if (d->cap == CW_CAP_NONE || !strncmp(d->rule, "builtin:", 8))
		return; /* nothing a profile can change */
	slot = d->cap == CW_CAP_FILESYSTEM_READ && d->secret ? CW_SLOT_SECRET_READ : (int)d->cap;
	o = slot_obj(root, basejson, slot, L);
	if (!o)
		return;
	if ((lst = strstr(d->rule, ":deny[")) || (lst = strstr(d->rule, ":ask[")))
		drop_base_entry(L, o, basejson, slot, lst, changed);
	else
		allow_scope(o, slot, d->scope, changed);
}

/* Drop the placeholders left by removals (indices stay stable while a
 * round runs). */
static void drop_placeholders(cJSON *root)
{
	cJSON *caps = cJSON_GetObjectItemCaseSensitive(root, "capabilities"), *o;

	cJSON_ArrayForEach(o, caps) {
		static const char *const lists[] = { "deny", "ask" };

		for (size_t li = 0; li < 2; li++) {
			cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, lists[li]);
			int i;

			for (i = cJSON_GetArraySize(arr) - 1; i >= 0; i--) {
				cJSON *it = cJSON_GetArrayItem(arr, i);

				if (cJSON_IsString(it) && !strcmp(it->valuestring, "/\x01removed"))
					cJSON_DeleteItemFromArray(arr, i);
			}
		}
	}
}

/* Re-decide every sample under the candidate; fix what is still not
 * allowed. Returns the number of samples still not allowed (after fixes
 * this round), or -errno. *CHANGED says whether the candidate changed. */
static long check_round(struct learn *L, cJSON *root, cJSON *basejson, bool *changed, bool report)
{
	char *text = cJSON_Print(root), err[1024];
	cw_profile *p = NULL;
	const cJSON *ev;
	long bad = 0;

	*changed = false;
	if (!text)
		return -ENOMEM;
	if (cw_tool_profile_parse_text(text, strlen(text), "<learned>", &p, err, sizeof(err)) < 0) {
		cw_tool_msg("learn: internal error: the learned profile does not parse: %s", err);
		free(text);
		return -EINVAL;
	}
	free(text);
	cJSON_ArrayForEach(ev, L->samples) {
		struct cw_op op;
		struct cw_op_storage stg;
		struct cw_decision d;

		if (cw_trace_event_to_op(ev, &op, &stg, err, sizeof(err)) < 0)
			continue;
		memset(&d, 0, sizeof(d));
		cw_policy_decide(p, &L->ctx, &op, &d);
		cw_op_storage_free(&stg);
		if (d.verdict == CW_ALLOW)
			continue;
		bad++;
		if (report)
			report_still_denied(&d);
		else
			fix_denial(L, root, basejson, &d, changed);
	}
	cw_profile_free(p);
	drop_placeholders(root);
	return bad;
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 64)
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

/* The command line into L. False when the tool is done: *RET is its exit
 * status (--help, a usage error). */
static bool parse_args(int argc, char **argv, struct learn *L, int *ret)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "name", required_argument, NULL, 'n' },
		{ "include-denied", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*ret = CW_TOOL_EXIT_USAGE; /* unless --help, when it returns false */
	L->name = "learned";
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "hb:n:d", opts, NULL)) != -1) {
		switch (c) {
		case 'b': L->basearg = optarg; break;
		case 'n': L->name = optarg; break;
		case 'd': L->include_denied = true; break;
		case 'h': fputs(usage_text, stdout); *ret = 0; return false;
		default:
			cw_tool_msg("learn: unknown or incomplete option \"%s\" (see capwatch learn --help)",
				    argv[optind - 1]);
			return false;
		}
	}
	if (argc - optind != 1) {
		cw_tool_msg("learn: expected one TRACE.jsonl (see capwatch learn --help)");
		return false;
	}
	if (!valid_name(L->name)) {
		cw_tool_msg("learn: bad --name \"%s\" (1 to 64 of A-Z a-z 0-9 . _ -)", L->name);
		return false;
	}
	L->file = argv[optind];
	return true;
}

/* --base: the profile, and its expansion as JSON (*BASEJSON) to build on. */
static int load_base(struct learn *L, cJSON **basejson)
{
	char *bj;

	if (cw_tool_profile_load(L->basearg, &L->base) < 0)
		return CW_TOOL_EXIT_USAGE;
	bj = cw_profile_to_json(L->base);
	*basejson = bj ? cJSON_Parse(bj) : NULL;
	free(bj);
	if (!*basejson) {
		cw_tool_msg("learn: out of memory");
		cw_profile_free(L->base);
		L->base = NULL;
		return CW_TOOL_EXIT_USAGE;
	}
	return 0;
}

static void learn_free(struct learn *L)
{
	for (int s = 0; s < CW_SLOT__COUNT; s++) {
		cw_sset_free(&L->scopes[s], NULL);
		cw_sset_free(&L->progs[s], NULL);
		cw_sset_free(&L->asked[s], NULL);
	}
	cw_sset_free(&L->sample_keys, NULL);
	cJSON_Delete(L->samples);
	if (L->have_ctx)
		cw_trace_context_free(&L->ctx);
	if (L->base)
		cw_profile_free(L->base);
	cw_tool_run_free(&L->run);
}

int cw_tool_learn(int argc, char **argv)
{
	struct learn L;
	struct cw_tr_status st;
	cJSON *root = NULL, *basejson = NULL;
	char *text;
	long bad = 0;
	int r, ret = CW_TOOL_EXIT_OK, round;
	bool changed;

	memset(&L, 0, sizeof(L));
	if (!parse_args(argc, argv, &L, &ret))
		return ret;
	ret = CW_TOOL_EXIT_OK;
	if (L.basearg && (ret = load_base(&L, &basejson)) != 0)
		return ret;
	cw_tool_run_init(&L.run, L.file);
	L.samples = cJSON_CreateArray();
	if (!L.samples) {
		ret = CW_TOOL_EXIT_USAGE;
		goto out;
	}
	r = cw_tr_read(L.file, on_header, on_event, &L, &st);
	if (r) {
		if (r == -ENOMEM)
			cw_tool_msg("%s: out of memory", L.file);
		ret = L.fatal ? L.fatal : CW_TOOL_EXIT_BADINPUT;
		goto out;
	}
	root = build(&L, basejson);
	if (!root) {
		cw_tool_msg("learn: out of memory");
		ret = CW_TOOL_EXIT_USAGE;
		goto out;
	}
	for (round = 0; round < 6; round++) {
		bad = check_round(&L, root, basejson, &changed, false);
		if (bad <= 0 || !changed)
			break;
	}
	if (bad < 0) {
		ret = CW_TOOL_EXIT_USAGE;
		goto out;
	}
	if (bad > 0) {
		check_round(&L, root, basejson, &changed, true);
		ret = CW_TOOL_EXIT_CHANGED;
	}
	text = cJSON_Print(root);
	if (!text) {
		cw_tool_msg("learn: out of memory");
		ret = CW_TOOL_EXIT_USAGE;
		goto out;
	}
	fputs(text, stdout);
	fputc('\n', stdout);
	free(text);
	if (st.partial)
		cw_tool_msg("%s: warning: the trace is incomplete; the profile covers only what was recorded",
			    L.file);
out:
	learn_free(&L);
	cJSON_Delete(root);
	cJSON_Delete(basejson);
	return ret;
}
