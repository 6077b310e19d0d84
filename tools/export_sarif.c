/* capwatch export --format sarif: one SARIF 2.1.0 log with one run per
 * capwatch run, one result per denial (and with --flagged per flagged allow).
 *
 * Mapping (README "SARIF for code scanning", capwatch(1)):
 *   rule       the capwatch rule that decided ("readonly:workspace_write:default"),
 *              described by its capability's line in policy/capabilities.def;
 *   level      error: an enforced denial; warning: a denial observe mode only
 *              recorded; note: a flagged allow;
 *   location   physicalLocation: the scope when it is a path, as a file:// URI
 *              of its exact bytes (percent-encoded, non-UTF-8 bytes too), made
 *              relative to a workspace root through originalUriBaseIds
 *              ("WORKSPACE", "WORKSPACE2", ...) so that a CI checkout maps it
 *              to the repository; logicalLocations: the program (kind
 *              "module", which SARIF defines as "a DLL, an executable") and
 *              the calling function the preload saw (kind "function");
 *   nextAction result.properties.nextAction plus a sentence in the message:
 *              SARIF's "fixes" are edits to artifacts (replacements of byte
 *              regions), which a capability decision is not.
 * Every string is valid UTF-8 in the output: invalid bytes read U+FFFD in
 * texts; URIs carry the exact bytes percent-encoded. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>

#include "policy/cap.h"
#include "tools/common.h"
#include "tools/export_sarif.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define MAX_ROOTS 16

struct sarif {
	struct cw_tool_run run;
	bool flagged;
	cJSON *rules;           /* tool.driver.rules (borrowed from the document) */
	struct cw_sset rule_ix; /* rule id -> aux = index */
	char *roots[MAX_ROOTS]; /* workspace roots (UTF-8 text as recorded) */
	size_t nroots;
	bool root_used[MAX_ROOTS];
};

/* S as valid UTF-8: each byte of an invalid sequence becomes U+FFFD. */
static char *clean(const char *s)
{
	char *fx, *out, *o;
	const char *p;

	if (!s)
		return NULL;
	fx = cw_tool_utf8_fix(s, '\x01');
	if (!fx)
		return NULL;
	out = malloc(strlen(fx) * 3 + 1);
	if (!out) {
		free(fx);
		return NULL;
	}
	for (p = fx, o = out; *p; p++) {
		if (*p == '\x01') {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
		} else
			*o++ = *p;
	}
	*o = '\0';
	free(fx);
	return out;
}

/* Add KEY = clean(S) to OBJ (nothing when S is NULL). */
static void add_text(cJSON *obj, const char *key, const char *s)
{
	char *c = clean(s);

	if (c)
		cJSON_AddStringToObject(obj, key, c);
	free(c);
}

/* Percent-encode the bytes of S: RFC 3986 unreserved characters and '/'
 * stay, every other byte (':' too, so a relative reference never looks like
 * a scheme; and every byte >= 0x80, UTF-8 or not) becomes %XX. */
static char *pct(const char *prefix, const char *s, const char *suffix)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(prefix) + strlen(s) * 3 + strlen(suffix) + 1;
	char *out = malloc(n), *o;
	const unsigned char *p;

	if (!out)
		return NULL;
	o = stpcpy(out, prefix);
	for (p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '-' || *p == '.' || *p == '_' || *p == '~' || *p == '/')
			*o++ = (char)*p;
		else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	strcpy(o, suffix);
	return out;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* The index of the rule RULE in tool.driver.rules, added on first use. */
static int rule_index(struct sarif *x, const char *rule, const char *cap)
{
	struct cw_sset_ent *e = cw_sset_get(&x->rule_ix, rule, false);
	cJSON *d, *o;
	int k = cap ? cw_cap_from_name(cap) : -1;
	const char *desc = k >= 0 && k < CW_CAP__COUNT ? cw_cap_description(k) : NULL;
	char text[1024];

	if (e)
		return (int)e->aux;
	e = cw_sset_get(&x->rule_ix, rule, true);
	if (!e)
		return -ENOMEM;
	e->aux = (unsigned long)cJSON_GetArraySize(x->rules);
	d = cJSON_CreateObject();
	if (!d)
		return -ENOMEM;
	cJSON_AddItemToArray(x->rules, d);
	add_text(d, "id", rule);
	o = cJSON_AddObjectToObject(d, "shortDescription");
	/* "Capability workspace_write: create, modify or delete files ..." */
	if (desc)
		snprintf(text, sizeof(text), "Capability %.64s: %.400s.", cap, desc);
	else
		snprintf(text, sizeof(text), "A capwatch decision on an operation of no known capability.");
	add_text(o, "text", text);
	o = cJSON_AddObjectToObject(d, "fullDescription");
	snprintf(text, sizeof(text), "The capwatch rule %.300s decided an operation that needs %.64s.", rule,
		 cap ? cap : "no known capability");
	add_text(o, "text", text);
	/* GitHub code scanning requires "help" on every rule (its GH2012) */
	o = cJSON_AddObjectToObject(d, "help");
	snprintf(text, sizeof(text),
		 "capwatch decided this operation by the rule %.200s. To allow it, grant %.64s in a profile "
		 "(capwatch-profile(5)) or for one run with --approve %.64s[:SCOPE]; otherwise change the command "
		 "so that it does not need it.", rule, cap ? cap : "the capability", cap ? cap : "CAPABILITY");
	add_text(o, "text", text);
	o = cJSON_AddObjectToObject(d, "properties");
	add_text(o, "capability", cap ? cap : "unknown");
	return (int)e->aux;
}

static const char *hint(const char *next_action)
{
	if (!next_action)
		return NULL;
	if (!strcmp(next_action, "change_command"))
		return "change the command so that it does not need this, or run it under a profile that grants it";
	if (!strcmp(next_action, "request_approval"))
		return "ask for approval: rerun with --approve CAPABILITY:SCOPE, or --approve-risk REASON";
	if (!strcmp(next_action, "enable_sandbox"))
		return "run where capwatch can enforce its policy (see enforcement.downgradeReason in the report)";
	return NULL;
}

/* nextAction of a record: the trace records it on every operation; a report
 * only on outcome.denial (the first denial), so for the others it is
 * derived as the policy derives it (policy/decide.c): a deny asks for a
 * change of command, an unanswered ask for approval. */
static const char *next_action_of(const struct sarif *x, const struct cw_tdenial *d, bool flagged)
{
	const cJSON *od;

	if (flagged)
		return "none";
	if (d->next_action)
		return d->next_action;
	od = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(x->run.report, "outcome"),
					     "denial");
	if (od) {
		const cJSON *cap = cJSON_GetObjectItemCaseSensitive(od, "capability");
		const char *k = cw_j_str(cap, "kind"), *s = cw_j_str(cap, "scope"), *r = cw_j_str(od, "rule");

		if (k && s && r && d->cap && d->scope && d->rule && !strcmp(k, d->cap) && !strcmp(s, d->scope) &&
		    !strcmp(r, d->rule) && cw_j_str(od, "nextAction"))
			return cw_j_str(od, "nextAction");
	}
	if (d->decision && !strcmp(d->decision, "ask"))
		return "request_approval";
	return "change_command";
}

/* The path a scope names, or NULL: "/p" and "unix:/p". */
static const char *scope_path(const char *scope)
{
	if (!scope)
		return NULL;
	if (scope[0] == '/')
		return scope;
	if (!strncmp(scope, "unix:/", 6))
		return scope + 5;
	return NULL;
}

static cJSON *artifact_location(struct sarif *x, const char *path)
{
	cJSON *a = cJSON_CreateObject();
	char *uri = NULL;
	size_t i;

	if (!a)
		return NULL;
	for (i = 0; i < x->nroots; i++) {
		size_t l = strlen(x->roots[i]);

		if (l > 1 && !strncmp(path, x->roots[i], l) && path[l] == '/' && path[l + 1]) {
			char id[24];

			uri = pct("", path + l + 1, "");
			snprintf(id, sizeof(id), i ? "WORKSPACE%zu" : "WORKSPACE", i + 1);
			if (uri) {
				cJSON_AddStringToObject(a, "uri", uri);
				cJSON_AddStringToObject(a, "uriBaseId", id);
				x->root_used[i] = true;
			}
			break;
		}
	}
	if (!uri) {
		uri = pct("file://", path, "");
		if (uri)
			cJSON_AddStringToObject(a, "uri", uri);
	}
	free(uri);
	return a;
}

/* "function+0xOFF (module+0xOFF)": the function name, malloc'd; NULL when
 * the frame has no symbol ("module+0xOFF"). */
static char *site_function(const char *site)
{
	const char *plus, *paren;

	if (!site || site[0] == '/' || !(paren = strstr(site, " (")))
		return NULL;
	plus = memchr(site, '+', (size_t)(paren - site));
	return strndup(site, (size_t)((plus ? plus : paren) - site));
}

/* The result's message: what capwatch did, to whom, why, what next. NULL on
 * allocation failure. */
static char *result_message(const struct cw_tdenial *d, bool flagged, bool enforced, const char *program,
			    const char *func, const char *rule, const char *na, const char *h)
{
	char *msg = NULL;
	size_t len = 0;
	FILE *m;

	m = open_memstream(&msg, &len);
	if (!m)
		return NULL;
	fprintf(m, "%s %s on %s: %s (pid %d) called %s%s%s; rule %s: %s.",
		flagged ? "capwatch allowed, flagged," : enforced ? "capwatch denied" :
		"capwatch would deny (observe mode, not enforced)",
		d->cap ? d->cap : "an unknown capability", d->scope ? d->scope : "?",
		program ? program : "an unknown program", d->pid, d->syscall ? d->syscall : "?",
		func ? " from " : "", func ? func : "", rule, d->reason ? d->reason : "no reason recorded");
	if (h)
		fprintf(m, " Next action %s: %s.", na, h);
	if (fclose(m) != 0 || !msg) {
		free(msg);
		return NULL;
	}
	return msg;
}

/* Where: the file the scope names (when it is one), the program and the
 * function it called from (the preload's site). */
static void result_locations(struct sarif *x, cJSON *r, const struct cw_tdenial *d, const char *path,
			     const char *program, const char *func)
{
	cJSON *locs, *loc, *ll, *l, *o;

	locs = cJSON_AddArrayToObject(r, "locations");
	loc = cJSON_CreateObject();
	cJSON_AddItemToArray(locs, loc);
	if (path) {
		o = cJSON_AddObjectToObject(loc, "physicalLocation");
		cJSON_AddItemToObject(o, "artifactLocation", artifact_location(x, path));
	}
	ll = cJSON_AddArrayToObject(loc, "logicalLocations");
	l = cJSON_CreateObject();
	cJSON_AddItemToArray(ll, l);
	add_text(l, "name", program ? base_name(program) : "?");
	if (program)
		add_text(l, "fullyQualifiedName", program);
	cJSON_AddStringToObject(l, "kind", "module");
	if (func) {
		l = cJSON_CreateObject();
		cJSON_AddItemToArray(ll, l);
		add_text(l, "name", func);
		add_text(l, "fullyQualifiedName", d->site);
		cJSON_AddStringToObject(l, "kind", "function");
	}
}

static void result_properties(cJSON *r, const struct cw_tdenial *d, bool flagged, bool enforced,
			      const char *program, const char *na)
{
	cJSON *o = cJSON_AddObjectToObject(r, "properties");

	add_text(o, "capability", d->cap);
	add_text(o, "scope", d->scope);
	add_text(o, "syscall", d->syscall);
	cJSON_AddNumberToObject(o, "pid", d->pid);
	add_text(o, "program", program);
	add_text(o, "decision", flagged ? "allow" : d->decision ? d->decision : "deny");
	cJSON_AddBoolToObject(o, "enforced", enforced);
	cJSON_AddBoolToObject(o, "flagged", flagged);
	add_text(o, "nextAction", na);
	add_text(o, "source", d->source);
	add_text(o, "host", d->host);
	add_text(o, "site", d->site);
	if (d->seq)
		cJSON_AddNumberToObject(o, "seq", (double)d->seq);
	cJSON_AddNumberToObject(o, "time", d->time);
}

static int add_result(struct sarif *x, cJSON *results, const struct cw_tdenial *d, bool flagged)
{
	struct cw_tproc *p = cw_tool_run_find(&x->run, d->pid);
	const char *program = d->program ? d->program : p && p->exe ? p->exe : NULL;
	const char *rule = d->rule ? d->rule : "capwatch:unknown-rule";
	const char *na = next_action_of(x, d, flagged), *h = hint(na);
	const char *scope_bytes = d->scope_bytes ? d->scope_bytes : d->scope;
	const char *path = scope_path(scope_bytes);
	bool enforced = d->enforced && !flagged;
	char *msg, *func = site_function(d->site);
	cJSON *r, *o;
	int ix = rule_index(x, rule, d->cap);

	if (ix < 0) {
		free(func);
		return ix;
	}
	r = cJSON_CreateObject();
	if (!r) {
		free(func);
		return -ENOMEM;
	}
	cJSON_AddItemToArray(results, r);
	add_text(r, "ruleId", rule);
	cJSON_AddNumberToObject(r, "ruleIndex", ix);
	cJSON_AddStringToObject(r, "level", flagged ? "note" : enforced ? "error" : "warning");

	msg = result_message(d, flagged, enforced, program, func, rule, na, h);
	if (!msg) {
		free(func);
		return -ENOMEM;
	}
	o = cJSON_AddObjectToObject(r, "message");
	add_text(o, "text", msg);
	free(msg);
	result_locations(x, r, d, path, program, func);
	free(func);

	o = cJSON_AddObjectToObject(r, "partialFingerprints");
	{
		char *fp = NULL;
		size_t fl = 0;
		FILE *f = open_memstream(&fp, &fl);

		if (f) {
			fprintf(f, "%s|%s|%s|%s", rule, d->cap ? d->cap : "", d->scope ? d->scope : "",
				program ? program : "");
			if (fclose(f) == 0 && fp)
				add_text(o, "capwatchDecision/v1", fp);
		}
		free(fp);
	}

	result_properties(r, d, flagged, enforced, program, na);
	return 0;
}

/* "2026-12-01T15:01:06(.123)?(Z|+hh:mm)" as seconds since the epoch, UTC. */
static bool parse_time(const char *s, double *out)
{
	struct tm tm = { 0 };
	int n = 0, oh = 0, om = 0;
	double frac = 0;
	char sign = 0;
	time_t t;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
			 &tm.tm_min, &tm.tm_sec, &n) != 6)
		return false;
	s += n;
	if (*s == '.') {
		char *end;

		frac = strtod(s, &end);
		s = end;
	}
	if (*s == 'Z')
		s++;
	else if ((*s == '+' || *s == '-') && sscanf(s + 1, "%2d:%2d%n", &oh, &om, &n) == 2) {
		sign = *s;
		s += 1 + n;
	} else
		return false;
	if (*s)
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return false;
	*out = (double)t + frac - (sign == '+' ? 1 : sign == '-' ? -1 : 0) * (oh * 3600.0 + om * 60.0);
	return true;
}

static void add_time(cJSON *o, const char *key, double t)
{
	time_t s = (time_t)t;
	struct tm tm;
	char buf[48], out[64];

	if (!gmtime_r(&s, &tm))
		return;
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, sizeof(out), "%s.%03dZ", buf, (int)((t - (double)s) * 1000) % 1000);
	cJSON_AddStringToObject(o, key, out);
}

static void add_notification(cJSON *inv, const char *level, const char *text)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(inv, "toolExecutionNotifications"), *n, *m;

	if (!arr)
		arr = cJSON_AddArrayToObject(inv, "toolExecutionNotifications");
	n = cJSON_CreateObject();
	cJSON_AddItemToArray(arr, n);
	cJSON_AddStringToObject(n, "level", level);
	m = cJSON_AddObjectToObject(n, "message");
	add_text(m, "text", text);
}

/* The supervised command: its command line, arguments and directory. */
static void inv_command(cJSON *inv, const cJSON *cmd, const char *cwd)
{
	const cJSON *it;
	cJSON *o;
	char **argv;
	size_t n = 0, i;

	argv = calloc((size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cmd, "args")) + 2,
		      sizeof(*argv));
	if (argv) {
		argv[n++] = (char *)(cw_j_str(cmd, "name") ? cw_j_str(cmd, "name") : "?");
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(cmd, "args"))
			argv[n++] = cJSON_IsString(it) ? it->valuestring : (char *)"?";
		{
			char *line = cw_tool_argv_join(argv, 4000);

			add_text(inv, "commandLine", line ? line : "?");
			free(line);
		}
		o = cJSON_AddArrayToObject(inv, "arguments");
		for (i = 1; i < n; i++) {
			char *c = clean(argv[i]);

			cJSON_AddItemToArray(o, cJSON_CreateString(c ? c : "?"));
			free(c);
		}
		free(argv);
	}
	if (cwd && cwd[0] == '/') {
		char *u = pct("file://", cwd, cwd[strlen(cwd) - 1] == '/' ? "" : "/");

		o = cJSON_AddObjectToObject(inv, "workingDirectory");
		if (u)
			cJSON_AddStringToObject(o, "uri", u);
		free(u);
	}
}

/* How the command ended: from the report's outcome, or from the trace's
 * first process. */
static void inv_exit(struct sarif *x, cJSON *inv, const cJSON *rep, const cJSON *oc)
{
	size_t i;

	if (rep) {
		const cJSON *ex = cJSON_GetObjectItemCaseSensitive(oc, "exit");
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(ex, "code");

		if (cJSON_IsNumber(code))
			cJSON_AddNumberToObject(inv, "exitCode", cw_num_int(code->valuedouble, 0));
		if (cw_j_str(ex, "signal"))
			cJSON_AddStringToObject(inv, "exitSignalName", cw_j_str(ex, "signal"));
		return;
	}
	for (i = 0; i < x->run.nprocs; i++) {
		const struct cw_tproc *p = &x->run.procs[i];

		if (p->parent != SIZE_MAX)
			continue;
		if (p->signal)
			add_text(inv, "exitSignalName", p->signal);
		else if (p->exited)
			cJSON_AddNumberToObject(inv, "exitCode", p->code);
		break;
	}
}

/* capwatch did its job unless its own setup failed or the record is cut:
 * the notifications, and whether the execution was successful. */
static bool inv_notifications(struct sarif *x, cJSON *inv, const cJSON *rep, const char *kind)
{
	bool ok = true;

	if (kind && !strcmp(kind, "sandbox_setup_failure")) {
		ok = false;
		add_notification(inv, "error", "capwatch could not set up supervision (sandbox_setup_failure).");
	}
	if (!rep && (!x->run.st.summary || x->run.st.partial)) {
		ok = false;
		add_notification(inv, "error", x->run.st.summary ?
				 "The trace has corrupt or cut-short lines: these results are partial." :
				 "The trace has no summary line: the run did not finish, these results are partial.");
	}
	/* A command denied before it started has no operation in the trace
	 * (only the summary counts it): say where the denial is. */
	if (!rep && x->run.summary && cw_j_u64(x->run.summary, "denials", 0) > x->run.ndenials) {
		char t[256];

		snprintf(t, sizeof(t), "The trace summary counts %llu denials but records %zu%s; the report has them all.",
			 (unsigned long long)cw_j_u64(x->run.summary, "denials", 0), x->run.ndenials,
			 kind && !strcmp(kind, "policy_denied") ? " (the command was denied before it started)" : "");
		add_notification(inv, "warning", t);
	}
	if (kind && !strcmp(kind, "enforcement_degraded"))
		add_notification(inv, "warning", "Enforcement was degraded: some operations were not supervised.");
	return ok;
}

/* The invocation: the supervised command, how it ended, when (a trace
 * records the wall-clock start; a report does not). */
static void add_invocation(struct sarif *x, cJSON *run)
{
	const cJSON *rep = x->run.report, *hdr = x->run.header;
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(rep ? rep : hdr, "command");
	const cJSON *oc = rep ? cJSON_GetObjectItemCaseSensitive(rep, "outcome") :
		cJSON_GetObjectItemCaseSensitive(x->run.summary, "outcome");
	const char *kind = cw_j_str(oc, "kind"), *state = cw_j_str(oc, "state");
	const char *cwd = rep ? cw_j_str(rep, "workingDirectory") : cw_j_str(hdr, "cwd");
	cJSON *invs = cJSON_AddArrayToObject(run, "invocations"), *inv = cJSON_CreateObject(), *o;
	double start;
	bool ok;

	cJSON_AddItemToArray(invs, inv);
	inv_command(inv, cmd, cwd);
	inv_exit(x, inv, rep, oc);
	if (!rep && parse_time(cw_j_str(hdr, "start"), &start)) {
		double el = cw_j_num(x->run.summary, "elapsed", -1);

		add_time(inv, "startTimeUtc", start);
		if (el >= 0)
			add_time(inv, "endTimeUtc", start + el);
	}
	ok = inv_notifications(x, inv, rep, kind);
	cJSON_AddBoolToObject(inv, "executionSuccessful", ok);
	o = cJSON_AddObjectToObject(inv, "properties");
	add_text(o, "profile", cw_j_str(rep ? rep : hdr, "profile"));
	add_text(o, "outcomeState", state);
	add_text(o, "outcomeKind", kind);
	{
		const cJSON *en = rep ? cJSON_GetObjectItemCaseSensitive(oc, "enforcement") :
			cJSON_GetObjectItemCaseSensitive(hdr, "enforcement");

		add_text(o, "enforcementBackend", cw_j_str(en, "backend"));
		add_text(o, "enforcementLevel", cw_j_str(en, "level"));
	}
	add_text(o, "input", x->run.file);
}

/* A command denied before it started: the report names the denial only in
 * outcome.denial. Feed it through the same path as the runtime ones. */
static int add_prestart_denial(struct sarif *x, cJSON *results)
{
	const cJSON *od = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(x->run.report,
											   "outcome"), "denial");
	const cJSON *cap = cJSON_GetObjectItemCaseSensitive(od, "capability");
	struct cw_tdenial d = { 0 };
	int r;

	if (!od)
		return 0;
	d.pid = cw_j_int(od, "pid", 0);
	d.cap = (char *)cw_j_str(cap, "kind");
	d.scope = (char *)cw_j_str(cap, "scope");
	d.scope_bytes = cw_j_bytes(cap, "scope");
	d.rule = (char *)cw_j_str(od, "rule");
	d.reason = (char *)cw_j_str(od, "reason");
	d.syscall = (char *)cw_j_str(od, "syscall");
	d.program = cw_j_bytes(od, "program");
	d.next_action = (char *)cw_j_str(od, "nextAction");
	d.source = (char *)cw_j_str(od, "source");
	d.decision = (char *)"deny";
	d.enforced = true;
	r = add_result(x, results, &d, false);
	free(d.scope_bytes);
	free(d.program);
	return r;
}

/* The workspace roots of the run, for artifact locations relative to
 * them. 0 or -ENOMEM. */
static int collect_roots(struct sarif *x)
{
	const cJSON *roots_arr, *it;

	roots_arr = x->run.report ? cJSON_GetObjectItemCaseSensitive(x->run.report, "workspaceRoots") :
		cJSON_GetObjectItemCaseSensitive(x->run.header, "roots");
	cJSON_ArrayForEach(it, roots_arr) {
		if (x->nroots < MAX_ROOTS && cJSON_IsString(it) && it->valuestring[0] == '/') {
			size_t l = strlen(it->valuestring);

			x->roots[x->nroots] = strdup(it->valuestring);
			if (!x->roots[x->nroots])
				return -ENOMEM;
			/* "/ws/" and "/ws" are the same root */
			while (l > 1 && x->roots[x->nroots][l - 1] == '/')
				x->roots[x->nroots][--l] = '\0';
			x->nroots++;
		}
	}
	return 0;
}

/* originalUriBaseIds: the roots a result's location is relative to. */
static int add_base_ids(struct sarif *x, cJSON *run)
{
	cJSON *bases = NULL;
	size_t i;

	for (i = 0; i < x->nroots; i++) {
		char id[24], *u;
		cJSON *b;

		if (!x->root_used[i])
			continue;
		if (!bases)
			bases = cJSON_AddObjectToObject(run, "originalUriBaseIds");
		snprintf(id, sizeof(id), i ? "WORKSPACE%zu" : "WORKSPACE", i + 1);
		b = cJSON_AddObjectToObject(bases, id);
		u = pct("file://", x->roots[i], "/");
		if (!b || !u) {
			free(u);
			return -ENOMEM;
		}
		cJSON_AddStringToObject(b, "uri", u);
		free(u);
		b = cJSON_AddObjectToObject(b, "description");
		add_text(b, "text", "A workspace root of the capwatch run.");
	}
	return 0;
}

int cw_export_sarif(const char *file, FILE *o, bool flagged)
{
	struct sarif x = { .flagged = flagged };
	cJSON *doc = NULL, *runs, *run, *tool, *driver, *results;
	char *text = NULL;
	size_t i;
	int r;

	cw_tool_run_init(&x.run, file);
	r = cw_tool_run_load(&x.run, true);
	if (r < 0)
		goto out;
	cw_tool_run_link(&x.run);
	r = -ENOMEM;
	doc = cJSON_CreateObject();
	if (!doc)
		goto out;
	cJSON_AddStringToObject(doc, "$schema", SARIF_SCHEMA);
	cJSON_AddStringToObject(doc, "version", "2.1.0");
	runs = cJSON_AddArrayToObject(doc, "runs");
	run = cJSON_CreateObject();
	cJSON_AddItemToArray(runs, run);
	tool = cJSON_AddObjectToObject(run, "tool");
	driver = cJSON_AddObjectToObject(tool, "driver");
	cJSON_AddStringToObject(driver, "name", "capwatch");
	cJSON_AddStringToObject(driver, "version", PACKAGE_VERSION);
	cJSON_AddStringToObject(driver, "semanticVersion", PACKAGE_VERSION);
	if (PACKAGE_URL[0])
		cJSON_AddStringToObject(driver, "informationUri", PACKAGE_URL);
	x.rules = cJSON_AddArrayToObject(driver, "rules");
	if (!x.rules)
		goto out;

	if (collect_roots(&x) < 0)
		goto out;

	results = cJSON_AddArrayToObject(run, "results");
	for (i = 0; i < x.run.ndenials; i++) {
		r = add_result(&x, results, &x.run.denials[i], false);
		if (r < 0)
			goto out;
	}
	if (x.run.report && !x.run.ndenials) {
		r = add_prestart_denial(&x, results);
		if (r < 0)
			goto out;
	}
	for (i = 0; flagged && i < x.run.nflagged; i++) {
		r = add_result(&x, results, &x.run.flagged[i], true);
		if (r < 0)
			goto out;
	}
	r = -ENOMEM;
	if (add_base_ids(&x, run) < 0)
		goto out;
	add_invocation(&x, run);
	text = cJSON_Print(doc);
	if (!text)
		goto out;
	fputs(text, o);
	fputc('\n', o);
	r = 0;
out:
	if (r == -ENOMEM)
		cw_tool_msg("%s: out of memory", file);
	free(text);
	cJSON_Delete(doc);
	for (i = 0; i < x.nroots; i++)
		free(x.roots[i]);
	cw_sset_free(&x.rule_ix, NULL);
	cw_tool_run_free(&x.run);
	return r;
}
