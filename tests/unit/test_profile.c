/* Profiles: the built-in matrix against the contract, profile files with
 * extends, located one-line errors, and expansion to JSON. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "policy.h"

/* ---- the contract's section 3 table, typed from contract.md ---------------- */

static const char *const contract_cols[] = { "none", "readonly", "verify", "repair", "observe" };
static const struct { const char *slot; const char *cell[5]; } contract_rows[] = {
	{ "filesystem_read",        { "deny", "allow", "allow", "allow", "allow" } },
	{ "filesystem_read_secret", { "deny", "deny",  "deny",  "deny",  "allow" } },
	{ "workspace_write",        { "deny", "deny",  "allow", "allow", "allow" } },
	{ "protected_metadata",     { "deny", "deny",  "deny",  "deny",  "allow" } },
	{ "process_spawn",          { "deny", "allow", "allow", "allow", "allow" } },
	{ "isolated_loopback",      { "deny", "deny",  "allow", "deny",  "allow" } },
	{ "host_visible_binding",   { "deny", "deny",  "deny",  "deny",  "allow" } },
	{ "external_network",       { "deny", "deny",  "ask",   "deny",  "allow" } },
	{ "process_control",        { "deny", "deny",  "deny",  "deny",  "allow" } },
	{ "environment",            { "deny", "deny",  "deny",  "deny",  "allow" } },
	{ "unrestricted",           { "deny", "deny",  "deny",  "deny",  "allow" } },
};

static void test_builtin_matrix(void **state)
{
	(void)state;
	assert_int_equal(sizeof contract_rows / sizeof contract_rows[0], CW_SLOT__COUNT);
	for (size_t c = 0; c < 5; c++) {
		assert_non_null(cw_builtin_profile_names[c]);
		assert_string_equal(cw_builtin_profile_names[c], contract_cols[c]);
		cw_profile *p = NULL;
		assert_int_equal(cw_profile_builtin(contract_cols[c], &p), 0);
		assert_string_equal(cw_profile_name(p), contract_cols[c]);
		for (size_t r = 0; r < CW_SLOT__COUNT; r++) {
			int slot = cw_slot_from_name(contract_rows[r].slot);
			assert_true(slot >= 0);
			const char *got = cw_verdict_name(cw_profile_default(p, slot));
			if (strcmp(got, contract_rows[r].cell[c]) != 0)
				fail_msg("%s/%s: %s, contract says %s", contract_cols[c],
					 contract_rows[r].slot, got, contract_rows[r].cell[c]);
		}
		/* "allow, flagged" in the observe column; "none" never starts */
		assert_int_equal(cw_profile_flags_sensitive(p), c == 4);
		assert_int_equal(cw_profile_allows_start(p), c != 0);
		cw_profile_free(p);
	}
	assert_null(cw_builtin_profile_names[5]);
	cw_profile *p = (cw_profile *)0x1;
	assert_int_equal(cw_profile_builtin("verfy", &p), -ENOENT);
	assert_int_equal(cw_profile_default(NULL, 0), CW_DENY);
	assert_false(cw_profile_allows_start(NULL));
}

/* ---- parsing helpers ---------------------------------------------------------- */

/* A resolver over an in-memory set of files. */
struct files {
	const char *name[12];
	const char *text[12];
	int calls;
	int max_depth;
};

static int resolve(void *opaque, const char *ref, int depth, cw_profile **out, char *err, size_t errsz)
{
	struct files *f = opaque;
	f->calls++;
	if (depth > f->max_depth)
		f->max_depth = depth;
	for (size_t i = 0; i < 12 && f->name[i]; i++)
		if (strcmp(f->name[i], ref) == 0)
			return cw_profile_parse(f->text[i], strlen(f->text[i]), ref, resolve, f, depth,
						out, err, errsz);
	snprintf(err, errsz, "%s: no such profile file", ref);
	return -ENOENT;
}

static cw_profile *parse_ok(const char *text, struct files *f)
{
	char err[512] = "";
	cw_profile *p = NULL;
	int rc = cw_profile_parse(text, strlen(text), "t.json", f ? resolve : NULL, f, 0, &p, err, sizeof err);
	if (rc != 0)
		fail_msg("parse failed (%d): %s", rc, err);
	assert_non_null(p);
	assert_string_equal(err, "");
	return p;
}

/* Parse TEXT expecting an error; the message must be one line that starts
 * with WANT_PREFIX and contains WANT_PART. */
static void parse_err(const char *text, struct files *f, const char *want_prefix, const char *want_part)
{
	char err[512] = "";
	cw_profile *p = (cw_profile *)0x1;
	int rc = cw_profile_parse(text, strlen(text), "bad.json", f ? resolve : NULL, f, 0, &p, err, sizeof err);
	if (rc != -EINVAL)
		fail_msg("parse returned %d, want -EINVAL (err \"%s\") for:\n%s", rc, err, text);
	assert_null(p);
	if (strchr(err, '\n'))
		fail_msg("error is not one line: \"%s\"", err);
	if (strncmp(err, want_prefix, strlen(want_prefix)) != 0)
		fail_msg("error \"%s\" does not start with \"%s\"", err, want_prefix);
	if (!strstr(err, want_part))
		fail_msg("error \"%s\" does not say \"%s\"", err, want_part);
}

static cw_verdict decide_v(const cw_profile *p, const struct cw_op *op, char *rule)
{
	static const char *const roots[] = { "/w" };
	struct cw_context ctx = { .roots = roots, .nroots = 1, .home = "/home/u", .scratch = "/tmp/s" };
	struct cw_decision d;
	cw_policy_decide(p, &ctx, op, &d);
	if (rule)
		strcpy(rule, d.rule);
	return d.verdict;
}

/* ---- valid files ----------------------------------------------------------------- */

static void test_parse_extends_builtin(void **state)
{
	(void)state;
	cw_profile *p = parse_ok(
		"{\n"
		"  \"$schema\": \"https://example.invalid/profile.schema.json\",\n"
		"  \"name\": \"ci-build\",\n"
		"  \"extends\": \"verify\",\n"
		"  \"notes\": \"CI: registry only\",\n"
		"  \"capabilities\": {\n"
		"    \"external_network\": {\"default\": \"deny\", \"allow\": [\"203.0.113.10:443\", \"pkgs.example.com:443\"],\n"
		"                         \"notes\": \"the registry\"},\n"
		"    \"workspace_write\": {\"deny\": [\"/w/vendor/**\"]},\n"
		"    \"environment\": \"ask\",\n"
		"    \"filesystem_read_secret\": \"deny\"\n"
		"  }\n"
		"}\n", NULL);
	assert_string_equal(cw_profile_name(p), "ci-build");
	assert_int_equal(cw_profile_default(p, CW_CAP_EXTERNAL_NETWORK), CW_DENY);
	assert_int_equal(cw_profile_default(p, CW_CAP_ENVIRONMENT), CW_ASK);
	/* inherited from verify */
	assert_int_equal(cw_profile_default(p, CW_CAP_WORKSPACE_WRITE), CW_ALLOW);
	assert_int_equal(cw_profile_default(p, CW_CAP_ISOLATED_LOOPBACK), CW_ALLOW);
	assert_int_equal(cw_profile_default(p, CW_CAP_UNRESTRICTED), CW_DENY);
	assert_true(cw_profile_allows_start(p));
	assert_false(cw_profile_flags_sensitive(p));

	char rule[CW_RULE_MAX];
	struct cw_op w = { .kind = CW_OP_OPEN_WRITE, .path = "/w/vendor/x" };
	assert_int_equal(decide_v(p, &w, rule), CW_DENY);
	assert_string_equal(rule, "ci-build:workspace_write:deny[0]");
	w.path = "/w/src/x";
	assert_int_equal(decide_v(p, &w, rule), CW_ALLOW);
	assert_string_equal(rule, "ci-build:workspace_write:default");
	struct sockaddr_storage ss;
	size_t len;
	assert_int_equal(cw_addr_parse("203.0.113.10:443", &ss, &len), 0);
	struct cw_op c = { .kind = CW_OP_CONNECT, .addr = (struct sockaddr *)&ss, .addrlen = len };
	assert_int_equal(decide_v(p, &c, rule), CW_ALLOW);
	assert_string_equal(rule, "ci-build:external_network:allow[0]");
	assert_int_equal(cw_addr_parse("203.0.113.11:443", &ss, &len), 0);
	assert_int_equal(decide_v(p, &c, rule), CW_DENY);
	assert_string_equal(rule, "ci-build:external_network:default");
	cw_profile_free(p);

	/* no extends: everything starts denied */
	p = parse_ok("{\"name\": \"bare\", \"capabilities\": {\"process_spawn\": {\"allow\": [\"/usr/bin/*\"]}}}", NULL);
	for (int s = 0; s < CW_SLOT__COUNT; s++)
		assert_int_equal(cw_profile_default(p, s), CW_DENY);
	assert_true(cw_profile_allows_start(p)); /* an allow scope lets some command start */
	cw_profile_free(p);
	p = parse_ok("{\"name\": \"bare\"}", NULL);
	assert_false(cw_profile_allows_start(p));
	cw_profile_free(p);
	/* flagSensitive is inherited from observe, and can be set */
	p = parse_ok("{\"name\": \"obs2\", \"extends\": \"observe\", \"capabilities\": {\"unrestricted\": \"deny\"}}", NULL);
	assert_true(cw_profile_flags_sensitive(p));
	assert_int_equal(cw_profile_default(p, CW_CAP_UNRESTRICTED), CW_DENY);
	cw_profile_free(p);
	p = parse_ok("{\"name\": \"obs3\", \"extends\": \"observe\", \"flagSensitive\": false}", NULL);
	assert_false(cw_profile_flags_sensitive(p));
	cw_profile_free(p);
}

static void test_parse_extends_resolver(void **state)
{
	(void)state;
	struct files f = {
		.name = { "base.json", "mid.json" },
		.text = {
			"{\"name\": \"base\", \"extends\": \"repair\", \"capabilities\": {"
			"  \"workspace_write\": {\"deny\": [\"/w/a/**\"], \"ask\": [\"/w/b/**\"]},"
			"  \"process_spawn\": {\"deny\": [\"/usr/bin/curl\"]}}}",
			"{\"name\": \"mid\", \"extends\": \"base.json\", \"capabilities\": {"
			"  \"workspace_write\": {\"deny\": [\"/w/c/**\"]}}}",
		},
	};
	cw_profile *p = parse_ok("{\"name\": \"top\", \"extends\": \"mid.json\","
				 " \"capabilities\": {\"isolated_loopback\": \"allow\"}}", &f);
	assert_int_equal(f.calls, 2);
	assert_int_equal(f.max_depth, 2);
	assert_int_equal(cw_profile_default(p, CW_CAP_ISOLATED_LOOPBACK), CW_ALLOW);
	assert_int_equal(cw_profile_default(p, CW_CAP_EXTERNAL_NETWORK), CW_DENY); /* from repair */
	char rule[CW_RULE_MAX];
	/* mid replaced the deny list, kept base's ask list */
	struct cw_op w = { .kind = CW_OP_OPEN_WRITE, .path = "/w/a/x" };
	assert_int_equal(decide_v(p, &w, rule), CW_ALLOW);
	w.path = "/w/c/x";
	assert_int_equal(decide_v(p, &w, rule), CW_DENY);
	assert_string_equal(rule, "top:workspace_write:deny[0]");
	w.path = "/w/b/x";
	assert_int_equal(decide_v(p, &w, rule), CW_ASK);
	assert_string_equal(rule, "top:workspace_write:ask[0]");
	struct cw_op e = { .kind = CW_OP_EXEC, .path = "/usr/bin/curl" };
	assert_int_equal(decide_v(p, &e, rule), CW_DENY);
	assert_string_equal(rule, "top:process_spawn:deny[0]");
	cw_profile_free(p);

	/* a chain of exactly 8 resolved files is fine */
	struct files chain = {
		.name = { "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8" },
		.text = {
			"{\"name\": \"p1\", \"extends\": \"p2\"}", "{\"name\": \"p2\", \"extends\": \"p3\"}",
			"{\"name\": \"p3\", \"extends\": \"p4\"}", "{\"name\": \"p4\", \"extends\": \"p5\"}",
			"{\"name\": \"p5\", \"extends\": \"p6\"}", "{\"name\": \"p6\", \"extends\": \"p7\"}",
			"{\"name\": \"p7\", \"extends\": \"p8\"}", "{\"name\": \"p8\", \"extends\": \"verify\"}",
		},
	};
	p = parse_ok("{\"name\": \"p0\", \"extends\": \"p1\"}", &chain);
	assert_int_equal(chain.max_depth, 8);
	assert_int_equal(cw_profile_default(p, CW_CAP_EXTERNAL_NETWORK), CW_ASK);
	cw_profile_free(p);
}

/* ---- errors: one line, origin and line ------------------------------------------ */

static void test_parse_errors(void **state)
{
	(void)state;
	/* syntax */
	parse_err("{\n  \"name\": \"x\",\n  \"capabilities\": {\n    \"workspace_write\": \"allow\",,\n  }\n}\n",
		  NULL, "bad.json:4: ", "syntax error");
	parse_err("{\n  \"name\": \"x\"\n", NULL, "bad.json:", "end of file");
	parse_err("", NULL, "bad.json:1: ", "syntax error");
	parse_err("{\"name\": \"x\"} trailing", NULL, "bad.json:1: ", "syntax error");
	parse_err("{\"name\": \"x\"}\n\n[", NULL, "bad.json:3: ", "syntax error");
	{
		static const char nul[] = "{\"name\":\n \"x\0\"}";
		char err[256];
		cw_profile *p = NULL;
		assert_int_equal(cw_profile_parse(nul, sizeof nul - 1, "bad.json", NULL, NULL, 0, &p, err, sizeof err), -EINVAL);
		assert_string_equal(err, "bad.json:2: NUL byte in profile");
	}
	/* the document */
	parse_err("\n[1, 2]", NULL, "bad.json:2: ", "a profile is a JSON object");
	parse_err("{\n  \"notes\": \"no name\"\n}", NULL, "bad.json:1: ", "missing \"name\"");
	parse_err("{\n  \"name\": \"x\",\n  \"nmae\": \"y\"\n}", NULL, "bad.json:3: ", "unknown key \"nmae\"");
	parse_err("{\n  \"name\": \"x\",\n  \"name\": \"y\"\n}", NULL, "bad.json:3: ", "duplicate key \"name\"");
	/* wrong types */
	parse_err("{\n  \"name\": 7\n}", NULL, "bad.json:2: ", "name: expected a string");
	parse_err("{\n  \"name\": \"a b\"\n}", NULL, "bad.json:2: ", "bad name \"a b\"");
	parse_err("{\"name\": \"x\",\n \"notes\": [\"n\"]}", NULL, "bad.json:2: ", "notes: expected a string");
	parse_err("{\"name\": \"x\",\n \"capabilities\": [] }", NULL, "bad.json:2: ", "capabilities: expected an object");
	parse_err("{\"name\": \"x\",\n \"flagSensitive\": \"yes\" }", NULL, "bad.json:2: ", "expected true or false");
	parse_err("{\"name\": \"x\", \"capabilities\": {\n \"workspace_write\": 1}}", NULL,
		  "bad.json:2: ", "expected \"allow\", \"deny\", \"ask\" or an object");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"workspace_write\": {\n \"deny\": \"/w/**\"}}}", NULL,
		  "bad.json:2: ", "deny: expected an array of strings");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"workspace_write\": {\"deny\": [\n \"/a\",\n 3]}}}", NULL,
		  "bad.json:3: ", "deny[1]: expected a string scope");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"workspace_write\": {\n\n \"default\": true}}}", NULL,
		  "bad.json:3: ", "expected \"allow\", \"deny\" or \"ask\"");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"workspace_write\": {\"notes\": \n1}}}", NULL,
		  "bad.json:1: ", "notes: expected a string");
	/* capability names and verdicts */
	parse_err("{\n  \"name\": \"x\",\n  \"capabilities\": {\n    \"netwrk\": \"deny\"\n  }\n}", NULL,
		  "bad.json:4: ", "unknown capability \"netwrk\"");
	parse_err("{\"name\": \"x\", \"capabilities\": {\n\"none\": \"deny\"}}", NULL,
		  "bad.json:2: ", "unknown capability \"none\"");
	parse_err("{\"name\": \"x\", \"capabilities\": {\n\"workspace_write\": \"permit\"}}", NULL,
		  "bad.json:2: ", "bad verdict \"permit\" for workspace_write");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"external_network\": {\n\"default\": \"Allow\"}}}", NULL,
		  "bad.json:2: ", "bad verdict \"Allow\"");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"external_network\": {\"default\": \"deny\",\n\"alow\": []}}}", NULL,
		  "bad.json:2: ", "unknown key \"alow\" in capabilities.external_network");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"external_network\": \"deny\",\n\"external_network\": \"allow\"}}", NULL,
		  "bad.json:2: ", "duplicate capability \"external_network\"");
	/* scopes, validated per slot */
	parse_err("{\"name\": \"x\", \"capabilities\": {\"external_network\": {\"allow\": [\n\"203.0.113.1:443\",\n\"not a scope\"]}}}",
		  NULL, "bad.json:3: ", "bad scope \"not a scope\" for external_network");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"external_network\": {\"allow\": [\"10.0.0.0/33\"]}}}",
		  NULL, "bad.json:1: ", "bad scope \"10.0.0.0/33\"");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"workspace_write\": {\"deny\": [\n\"relative/path\"]}}}",
		  NULL, "bad.json:2: ", "bad scope \"relative/path\" for workspace_write");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"process_spawn\": {\"allow\": [\n\"make\"]}}}",
		  NULL, "bad.json:2: ", "bad scope \"make\" for process_spawn");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"process_control\": {\"allow\": [\n\"1234\"]}}}",
		  NULL, "bad.json:2: ", "pids are not scoped");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"environment\": {\"allow\": [\n\"A=B\"]}}}",
		  NULL, "bad.json:2: ", "bad scope \"A=B\" for environment");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"unrestricted\": {\"allow\": [\n\"\"]}}}",
		  NULL, "bad.json:2: ", "empty scope");
	parse_err("{\"name\": \"x\", \"capabilities\": {\"workspace_write\": {\"deny\": [\n\"bad\\nline\"]}}}",
		  NULL, "bad.json:2: ", "bad scope \"bad\\x0aline\"");
	/* extends */
	parse_err("{\"name\": \"x\",\n\"extends\": \"verfy\"}", NULL, "bad.json:2: ", "extends unknown profile \"verfy\"");
	parse_err("{\"name\": \"x\",\n\"extends\": 3}", NULL, "bad.json:2: ", "extends: expected a profile name or file");
	struct files missing = { .name = { NULL } };
	parse_err("{\"name\": \"x\",\n\"extends\": \"nope.json\"}", &missing, "bad.json:2: ",
		  "extends \"nope.json\": nope.json: no such profile file");
	struct files inner = {
		.name = { "child.json" },
		.text = { "{\"name\": \"child\",\n\"capabilities\": {\"netwrk\": \"deny\"}}" },
	};
	parse_err("{\"name\": \"x\",\n\"extends\": \"child.json\"}", &inner, "bad.json:2: ",
		  "child.json:2: unknown capability \"netwrk\"");
	struct files loop = {
		.name = { "a.json", "b.json" },
		.text = { "{\"name\": \"a\", \"extends\": \"b.json\"}", "{\"name\": \"b\", \"extends\": \"a.json\"}" },
	};
	parse_err("{\"name\": \"top\",\n\"extends\": \"a.json\"}", &loop, "bad.json:2: ", "deeper than 8");
	assert_int_equal(loop.max_depth, 8);
	struct files deep = {
		.name = { "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9" },
		.text = {
			"{\"name\": \"p1\", \"extends\": \"p2\"}", "{\"name\": \"p2\", \"extends\": \"p3\"}",
			"{\"name\": \"p3\", \"extends\": \"p4\"}", "{\"name\": \"p4\", \"extends\": \"p5\"}",
			"{\"name\": \"p5\", \"extends\": \"p6\"}", "{\"name\": \"p6\", \"extends\": \"p7\"}",
			"{\"name\": \"p7\", \"extends\": \"p8\"}",
			"{\"name\": \"p8\",\n \"extends\": \"p9\"}", "{\"name\": \"p9\", \"extends\": \"verify\"}",
		},
	};
	parse_err("{\"name\": \"p0\", \"extends\": \"p1\"}", &deep, "bad.json:1: ", "p8:2: extends \"p9\": chain deeper than 8");

	/* without a line: the key cannot be found in the text (escaped key) */
	parse_err("{\"name\": \"x\", \"capabilities\": {\"\\u006eetwrk\": \"deny\"}}", NULL,
		  "bad.json: capabilities.netwrk: ", "unknown capability \"netwrk\"");
	/* a small error buffer truncates, never overflows */
	char small[12];
	cw_profile *p = NULL;
	assert_int_equal(cw_profile_parse("{}", 2, "long-origin.json", NULL, NULL, 0, &p, small, sizeof small), -EINVAL);
	assert_int_equal(strlen(small), sizeof small - 1);
	assert_int_equal(cw_profile_parse("{}", 2, "x", NULL, NULL, 0, NULL, small, sizeof small), -EINVAL);
}

/* ---- expansion ------------------------------------------------------------------------ */

static const char *const sample_addrs[] = {
	"203.0.113.10:443", "203.0.113.11:443", "127.0.0.1:6379", "[::1]:80", "0.0.0.0:80",
	"[2001:db8::5]:443", "unix:/var/run/docker.sock", "unix:@x", "unix:/w/s.sock",
};
static const char *const sample_paths[] = {
	"/w/src/a.c", "/w/vendor/x", "/w/.git/config", "/etc/passwd", "/home/u/.ssh/id_rsa",
	"/w/.env", "/usr/bin/curl", "/usr/bin/make", "/w/b.lock", "/dev/null", "/tmp/s/x",
};

static void same_decisions(const cw_profile *a, const cw_profile *b)
{
	char ra[CW_RULE_MAX], rb[CW_RULE_MAX];
	static const cw_op_kind path_kinds[] = { CW_OP_OPEN_READ, CW_OP_OPEN_WRITE, CW_OP_FS_WRITE, CW_OP_EXEC };
	static const cw_op_kind net_kinds[] = { CW_OP_CONNECT, CW_OP_SEND, CW_OP_BIND };
	for (size_t k = 0; k < sizeof path_kinds / sizeof path_kinds[0]; k++)
		for (size_t i = 0; i < sizeof sample_paths / sizeof sample_paths[0]; i++) {
			struct cw_op op = { .kind = path_kinds[k], .path = sample_paths[i] };
			cw_verdict va = decide_v(a, &op, ra), vb = decide_v(b, &op, rb);
			if (va != vb || strcmp(ra, rb) != 0)
				fail_msg("%s %s: %s/%s vs %s/%s", cw_op_name(op.kind), op.path,
					 cw_verdict_name(va), ra, cw_verdict_name(vb), rb);
		}
	for (size_t k = 0; k < sizeof net_kinds / sizeof net_kinds[0]; k++)
		for (size_t i = 0; i < sizeof sample_addrs / sizeof sample_addrs[0]; i++) {
			struct sockaddr_storage ss;
			size_t len;
			assert_int_equal(cw_addr_parse(sample_addrs[i], &ss, &len), 0);
			struct cw_op op = { .kind = net_kinds[k], .addr = (struct sockaddr *)&ss, .addrlen = len };
			cw_verdict va = decide_v(a, &op, ra), vb = decide_v(b, &op, rb);
			if (va != vb || strcmp(ra, rb) != 0)
				fail_msg("%s %s: %s/%s vs %s/%s", cw_op_name(op.kind), sample_addrs[i],
					 cw_verdict_name(va), ra, cw_verdict_name(vb), rb);
		}
	const char *const envs[] = { "CI", "CI,AWS_KEY", "HOME,NPM_TOKEN" };
	for (size_t i = 0; i < 3; i++) {
		struct cw_op op = { .kind = CW_OP_ENV, .env_names = envs[i] };
		assert_int_equal(decide_v(a, &op, ra), decide_v(b, &op, rb));
		assert_string_equal(ra, rb);
	}
	struct cw_op esc = { .kind = CW_OP_ESCAPE_SYSCALL, .syscall = "personality" };
	assert_int_equal(decide_v(a, &esc, ra), decide_v(b, &esc, rb));
	assert_string_equal(ra, rb);
	for (int s = 0; s < CW_SLOT__COUNT; s++)
		assert_int_equal(cw_profile_default(a, s), cw_profile_default(b, s));
	assert_int_equal(cw_profile_flags_sensitive(a), cw_profile_flags_sensitive(b));
	assert_int_equal(cw_profile_allows_start(a), cw_profile_allows_start(b));
}

static void roundtrip(const cw_profile *p)
{
	char *json = cw_profile_to_json(p);
	assert_non_null(json);
	assert_null(strstr(json, "\"extends\"")); /* expanded */
	char err[512];
	cw_profile *q = NULL;
	if (cw_profile_parse(json, strlen(json), "expanded.json", NULL, NULL, 0, &q, err, sizeof err) != 0)
		fail_msg("to_json output does not parse: %s\n%s", err, json);
	same_decisions(p, q);
	/* and the expansion is stable */
	char *again = cw_profile_to_json(q);
	assert_string_equal(json, again);
	free(again);
	free(json);
	cw_profile_free(q);
}

static void test_to_json_roundtrip(void **state)
{
	(void)state;
	for (const char *const *n = cw_builtin_profile_names; *n; n++) {
		cw_profile *p = NULL;
		assert_int_equal(cw_profile_builtin(*n, &p), 0);
		roundtrip(p);
		cw_profile_free(p);
	}
	struct files f = {
		.name = { "base.json" },
		.text = { "{\"name\": \"base\", \"extends\": \"observe\", \"notes\": \"base notes\","
			  " \"capabilities\": {\"workspace_write\": {\"deny\": [\"/w/vendor/**\"], \"ask\": [\"**/*.lock\"]}}}" },
	};
	cw_profile *p = parse_ok(
		"{\"name\": \"custom\", \"extends\": \"base.json\", \"notes\": \"why \\\"this\\\" exists\","
		" \"capabilities\": {"
		"  \"external_network\": {\"default\": \"ask\", \"deny\": [\"203.0.113.11\"],"
		"     \"allow\": [\"203.0.113.0/24:443\", \"[2001:db8::/32]:*\", \"pkgs.example.com:443\"], \"notes\": \"n\"},"
		"  \"isolated_loopback\": {\"deny\": [\"127.0.0.1:6379\"]},"
		"  \"process_control\": {\"allow\": [\"unix:/var/run/*.sock\"]},"
		"  \"process_spawn\": {\"deny\": [\"/usr/bin/curl\"]},"
		"  \"environment\": {\"default\": \"deny\", \"allow\": [\"CI\", \"HOME\", \"NPM_*\"]},"
		"  \"unrestricted\": {\"default\": \"deny\", \"allow\": [\"personality\"]},"
		"  \"filesystem_read_secret\": {\"default\": \"deny\", \"allow\": [\"/w/.env\"]}"
		"}}", &f);
	assert_true(cw_profile_flags_sensitive(p));
	roundtrip(p);
	char *json = cw_profile_to_json(p);
	assert_non_null(strstr(json, "\"flagSensitive\":\ttrue"));
	assert_non_null(strstr(json, "\"name\":\t\"custom\""));
	free(json);
	cw_profile_free(p);
	assert_null(cw_profile_to_json(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_matrix),
		cmocka_unit_test(test_parse_extends_builtin),
		cmocka_unit_test(test_parse_extends_resolver),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_to_json_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
