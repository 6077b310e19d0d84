/* Table-driven tests of the one decision function (contract sections 2, 3)
 * and of the pure helpers under it. No kernel: every row is an operation as
 * the supervisor would report it, and the decision it must get. */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <cmocka.h>
#include "policy.h"

/* ---- the run every row is decided in --------------------------------------- */

static const char *const roots[] = { "/work/ws", "/srv/second" };
static const char *const protected_files[] = {
	"/work/ws/out/report.json", "/var/tmp/trace.jsonl", "/etc/capwatch/ci.json",
	"/work/ws/link/../out/report.json", /* as walked (cw_walked_names): link a symlink */
};
static const struct cw_grant grants_scoped[] = {
	{ CW_CAP_EXTERNAL_NETWORK, "203.0.113.0/24:443" },
	{ CW_CAP_WORKSPACE_WRITE, "/work/ws/gen/**" },
	{ CW_CAP_FILESYSTEM_READ, NULL },
	{ CW_CAP_ENVIRONMENT, "CI" },
};
static const struct cw_grant grants_net[] = {
	{ CW_CAP_EXTERNAL_NETWORK, NULL },
};

enum { PLAIN, RISK, GRANT, GRANT_NET, NOCTX, HOSTS };

/* Names "the supervisor resolved" for the HOSTS context (host-name scopes). */
static struct cw_resolved_host resolved[3];
static void make_hosts(void)
{
	static const struct { const char *addr, *name; } h[] = {
		{ "198.51.100.9:0", "pkgs.example.com" },
		{ "192.0.2.44:0", "a.mirror.example.org" },
		{ "[2001:db8:5::1]:0", "pkgs.example.com" },
	};
	for (size_t i = 0; i < 3; i++) {
		size_t len;
		if (cw_addr_parse(h[i].addr, &resolved[i].addr, &len) != 0)
			fail_msg("%s does not parse", h[i].addr);
		resolved[i].addrlen = len;
		resolved[i].name = h[i].name;
	}
}

static struct cw_context make_ctx(int which)
{
	struct cw_context c = {
		.roots = roots, .nroots = 2,
		.scratch = "/tmp/cw-scratch", .home = "/home/u",
		.protected_files = protected_files, .nprotected = 4,
	};
	if (which == RISK) {
		c.approve_risk = true;
		c.approve_reason = "CI needs the registry";
	} else if (which == GRANT) {
		c.grants = grants_scoped;
		c.ngrants = sizeof grants_scoped / sizeof grants_scoped[0];
	} else if (which == GRANT_NET) {
		c.grants = grants_net;
		c.ngrants = 1;
	} else if (which == HOSTS) {
		make_hosts();
		c.hosts = resolved;
		c.nhosts = 3;
	}
	return c;
}

/* Custom profiles used by some rows, next to the built-in ones. */
static const char scoped_json[] =
	"{\n"
	"  \"name\": \"scoped\",\n"
	"  \"extends\": \"verify\",\n"
	"  \"capabilities\": {\n"
	"    \"external_network\": {\"default\": \"deny\",\n"
	"       \"deny\": [\"203.0.113.66\"],\n"
	"       \"ask\": [\"198.51.100.7:*\"],\n"
	"       \"allow\": [\"pkgs.example.com:443\", \"203.0.113.0/24:443\", \"[2001:db8::/32]:*\", \"*.mirror.example.org:80\"]},\n"
	"    \"workspace_write\": {\"deny\": [\"/work/ws/vendor/**\"], \"ask\": [\"**/*.lock\"]},\n"
	"    \"process_spawn\": {\"deny\": [\"/usr/bin/curl\", \"**/wget\"]},\n"
	"    \"filesystem_read_secret\": {\"allow\": [\"/work/ws/test/fixtures/*.pem\"]},\n"
	"    \"isolated_loopback\": {\"deny\": [\"127.0.0.1:6379\"]},\n"
	"    \"process_control\": {\"allow\": [\"unix:/run/user/*/bus\"]},\n"
	"    \"environment\": {\"default\": \"ask\", \"deny\": [\"AWS_*\"], \"allow\": [\"CI\", \"NPM_*\"]},\n"
	"    \"unrestricted\": {\"allow\": [\"/opt/cache/**\", \"personality\"]}\n"
	"  }\n"
	"}\n";
static const char askall_json[] =
	"{\"name\": \"askall\", \"capabilities\": {"
	"\"filesystem_read\": \"ask\", \"filesystem_read_secret\": \"ask\", \"workspace_write\": \"ask\","
	"\"protected_metadata\": \"ask\", \"process_spawn\": \"ask\", \"isolated_loopback\": \"ask\","
	"\"host_visible_binding\": \"ask\", \"external_network\": \"ask\", \"process_control\": \"ask\","
	"\"environment\": \"ask\", \"unrestricted\": \"ask\"}}";

struct profiles {
	cw_profile *p[8];
	size_t n;
};

static const cw_profile *profile(void **state, const char *name)
{
	struct profiles *ps = *state;
	for (size_t i = 0; i < ps->n; i++)
		if (strcmp(cw_profile_name(ps->p[i]), name) == 0)
			return ps->p[i];
	fail_msg("no profile %s", name);
	return NULL;
}

static int setup(void **state)
{
	struct profiles *ps = calloc(1, sizeof *ps);
	char err[256];
	for (const char *const *n = cw_builtin_profile_names; *n; n++)
		if (cw_profile_builtin(*n, &ps->p[ps->n++]) < 0)
			return -1;
	if (cw_profile_parse(scoped_json, strlen(scoped_json), "scoped.json", NULL, NULL, 0,
			     &ps->p[ps->n++], err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (cw_profile_parse(askall_json, strlen(askall_json), "askall.json", NULL, NULL, 0,
			     &ps->p[ps->n++], err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	*state = ps;
	return 0;
}

static int teardown(void **state)
{
	struct profiles *ps = *state;
	for (size_t i = 0; i < ps->n; i++)
		cw_profile_free(ps->p[i]);
	free(ps);
	return 0;
}

/* ---- the table ------------------------------------------------------------- */

enum {
	F_RAW = 1,       /* hand the path to decide as it is (decide must normalize) */
	F_BASE = 2,      /* relative path: normalize against /work/ws/sub first */
	F_INTREE = 4,    /* signal/proc target is in the supervised tree */
	F_NULL = 8,      /* missing operand */
	F_BADKIND = 16,  /* an operation kind that does not exist */
	F_UNSPEC = 32,   /* parse as inet, then set sa_family = AF_UNSPEC */
	F_ALIAS = 64,    /* the written object has a name made before the run (hard link);
			    for a read: it is the same inode as a known secret */
	F_EXCHANGE = 128, /* rename with RENAME_EXCHANGE */
	F_KEYFREE = 256, /* a read the supervisor found no private key in */
	F_UNLINK = 512,  /* an FS_WRITE that is an unlink (op.syscall "unlink") */
};

struct row {
	const char *prof;
	int ctx;
	cw_op_kind kind;
	const char *a;     /* path, address text, pid, names or syscall */
	const char *b;     /* second path (rename) or host name (network) */
	int flags;
	cw_cap_kind cap;
	bool secret;
	cw_verdict v;
	const char *rule;
	const char *scope; /* checked when not NULL */
	bool flagged;
	int rc;
};

#define A CW_ALLOW
#define D CW_DENY
#define Q CW_ASK
#define C(x) CW_CAP_##x
#define NONE_CAP CW_CAP_NONE

/* One operation under the five built-in profiles, the contract's columns:
 * none readonly verify repair observe. Observe flags what it allows of
 * secret reads and protected writes. */
#define ROW(p_, c_, k_, a_, b_, f_, cap_, sec_, v_, rule_, ...) { .prof = p_, .ctx = c_, \
	.kind = k_, .a = a_, .b = b_, .flags = f_, .cap = cap_, .secret = sec_, .v = v_, .rule = rule_, \
	__VA_ARGS__ }

#define M5(k, arg, cap_, sec, slot, vn, vr, vv, vp, vo)                                         \
	ROW("none", PLAIN, CW_OP_##k, arg, NULL, 0, cap_, sec, vn, "none:" slot ":default"),         \
	ROW("readonly", PLAIN, CW_OP_##k, arg, NULL, 0, cap_, sec, vr, "readonly:" slot ":default"), \
	ROW("verify", PLAIN, CW_OP_##k, arg, NULL, 0, cap_, sec, vv, "verify:" slot ":default"),     \
	ROW("repair", PLAIN, CW_OP_##k, arg, NULL, 0, cap_, sec, vp, "repair:" slot ":default"),     \
	ROW("observe", PLAIN, CW_OP_##k, arg, NULL, 0, cap_, sec, vo, "observe:" slot ":default",    \
	    .flagged = (sec) || (cap_) == CW_CAP_PROTECTED_METADATA)

/* The contract's rows, one macro per row of the section 3 table. */
#define READ5(k, arg)      M5(k, arg, C(FILESYSTEM_READ), false, "filesystem_read", D, A, A, A, A)
#define SECRET5(arg)       M5(OPEN_READ, arg, C(FILESYSTEM_READ), true, "filesystem_read_secret", D, D, D, D, A)
#define WS5(k, arg)        M5(k, arg, C(WORKSPACE_WRITE), false, "workspace_write", D, D, A, A, A)
#define PROT5(k, arg)      M5(k, arg, C(PROTECTED_METADATA), false, "protected_metadata", D, D, D, D, A)
#define SPAWN5(arg)        M5(EXEC, arg, C(PROCESS_SPAWN), false, "process_spawn", D, A, A, A, A)
#define LOOP5(k, arg)      M5(k, arg, C(ISOLATED_LOOPBACK), false, "isolated_loopback", D, D, A, D, A)
#define BIND5(k, arg)      M5(k, arg, C(HOST_VISIBLE_BINDING), false, "host_visible_binding", D, D, D, D, A)
#define EXT5(k, arg)       M5(k, arg, C(EXTERNAL_NETWORK), false, "external_network", D, D, Q, D, A)
#define CTL5(k, arg)       M5(k, arg, C(PROCESS_CONTROL), false, "process_control", D, D, D, D, A)
#define ENV5(arg)          M5(ENV, arg, C(ENVIRONMENT), false, "environment", D, D, D, D, A)
#define UNR5(k, arg)       M5(k, arg, C(UNRESTRICTED), false, "unrestricted", D, D, D, D, A)

static const struct row rows[] = {
	/* ---- section 2 x section 3: every capability under every built-in ---- */
	READ5(OPEN_READ, "/work/ws/src/main.c"),
	READ5(OPEN_READ, "/usr/include/stdio.h"),
	READ5(OPEN_READ, "/work/ws/.git/config"),      /* reading .git is a plain read */
	READ5(OPEN_READ, "/work/ws/keys/id_rsa.pub"),  /* a public key is not a secret */
	SECRET5("/home/u/.ssh/id_ed25519"),
	SECRET5("/home/u/.ssh"),
	SECRET5("/home/u/.aws/credentials"),
	SECRET5("/home/u/.gnupg/private-keys-v1.d/AB12.key"),
	SECRET5("/home/u/.netrc"),
	SECRET5("/work/ws/.env"),
	SECRET5("/work/ws/config/.env.production"),
	SECRET5("/work/ws/certs/server.pem"),
	SECRET5("/work/ws/deploy/.ssh/id_deploy"),
	SECRET5("/home/u/.docker/config.json"),
	SECRET5("/home/u/.kube/config"),
	SECRET5("/home/u/.git-credentials"),
	SECRET5("/root/.ssh/authorized_keys"),
	SECRET5("/home/other/.aws/config"),
	WS5(OPEN_WRITE, "/work/ws/build/main.o"),
	WS5(FS_WRITE, "/work/ws/old.txt"),
	WS5(SYMLINK, "/work/ws/latest"),
	WS5(OPEN_WRITE, "/srv/second/x"),
	PROT5(OPEN_WRITE, "/work/ws/.git/config"),
	PROT5(FS_WRITE, "/work/ws/.git/hooks/pre-commit"),
	/* ordinary repository writes are workspace writes (contract section
	 * 2); what makes git run code stays protected */
	WS5(OPEN_WRITE, "/work/ws/.git/HEAD"),
	WS5(OPEN_WRITE, "/work/ws/.git/index.lock"),
	WS5(OPEN_WRITE, "/work/ws/.git/objects/ab/cdef0123"),
	WS5(OPEN_WRITE, "/work/ws/.git/refs/heads/config"),
	WS5(OPEN_WRITE, "/work/ws/.git/logs/HEAD"),
	PROT5(OPEN_WRITE, "/work/ws/.git/config.worktree"),
	PROT5(OPEN_WRITE, "/work/ws/.git/info/attributes"),
	PROT5(FS_WRITE, "/work/ws/.git/info"),
	PROT5(FS_WRITE, "/work/ws/.git/hooks"),
	PROT5(OPEN_WRITE, "/work/ws/.git/modules/sub/config"),
	PROT5(OPEN_WRITE, "/work/ws/.git/modules/sub/hooks/post-checkout"),
	PROT5(FS_WRITE, "/work/ws/.git/modules/sub"),
	PROT5(FS_WRITE, "/work/ws/.git/modules"),
	PROT5(OPEN_WRITE, "/work/ws/.git/worktrees/w1/config.worktree"),
	PROT5(OPEN_WRITE, "/work/ws/.git/worktrees/w1/commondir"),
	WS5(OPEN_WRITE, "/work/ws/.git/worktrees/w1/index"),
	WS5(OPEN_WRITE, "/work/ws/.git/modules/sub/objects/pack/x.pack"),
	PROT5(OPEN_WRITE, "/work/ws/.capwatch/state"),
	PROT5(OPEN_WRITE, "/work/ws/out/report.json"),
	PROT5(OPEN_WRITE, "/var/tmp/trace.jsonl"),
	PROT5(FS_WRITE, "/etc/capwatch/ci.json"),
	UNR5(OPEN_WRITE, "/etc/passwd"),
	UNR5(FS_WRITE, "/home/u/.bashrc"),
	UNR5(SYMLINK, "/usr/local/bin/evil"),
	SPAWN5("/usr/bin/make"),
	SPAWN5("/work/ws/build.sh"),
	EXT5(CONNECT, "203.0.113.7:443"),
	EXT5(SEND, "[2001:db8::1]:53"),
	EXT5(CONNECT, "[::ffff:203.0.113.7]:80"),
	LOOP5(CONNECT, "127.0.0.1:8080"),
	LOOP5(CONNECT, "127.8.9.10:9"),
	LOOP5(CONNECT, "[::1]:80"),
	LOOP5(CONNECT, "[::ffff:127.0.0.1]:80"),
	LOOP5(CONNECT, "0.0.0.0:80"),             /* connect to ANY reaches this host */
	LOOP5(SEND, "[::]:53"),
	LOOP5(CONNECT, "[::ffff:0.0.0.0]:80"),
	LOOP5(BIND, "127.0.0.1:8080"),
	LOOP5(CONNECT, "unix:/work/ws/.run/dev.sock"), /* a socket in the workspace */
	BIND5(BIND, "0.0.0.0:8080"),              /* bind to ANY is visible to the host */
	BIND5(BIND, "[::]:8080"),
	BIND5(LISTEN, "0.0.0.0:8080"),
	BIND5(BIND, "203.0.113.7:80"),
	BIND5(BIND, "unix:@abstract-srv"),
	CTL5(CONNECT, "unix:/var/run/docker.sock"),
	CTL5(CONNECT, "unix:@/tmp/.X11-unix/X0"),
	CTL5(SIGNAL, "1"),
	CTL5(PROC_ACCESS, "4242"),
	ENV5("HOME,PATH,AWS_SECRET_ACCESS_KEY"),
	UNR5(ESCAPE_SYSCALL, "mount"),
	UNR5(ESCAPE_SYSCALL, "unshare"),
	UNR5(ESCAPE_SYSCALL, "bpf"),
	UNR5(ESCAPE_SYSCALL, "io_uring_setup"),

	/* ---- lexical normalization reaches the decision ---- */
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/../etc/passwd", NULL, F_RAW,
	  C(UNRESTRICTED), false, D, "verify:unrestricted:default", .scope = "/work/etc/passwd"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/src/../../ws/x.c", NULL, F_RAW,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default", .scope = "/work/ws/x.c"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/dir/", NULL, F_RAW,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default", .scope = "/work/ws/dir"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/./a//b/./c", NULL, F_RAW,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default", .scope = "/work/ws/a/b/c"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/../../work/ws/a", NULL, F_RAW,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default", .scope = "/work/ws/a"),
	ROW("verify", PLAIN, CW_OP_FS_WRITE, "/work/ws/.git/../.git/config", NULL, F_RAW,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default", .scope = "/work/ws/.git/config"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/../../home/u/.ssh/id_rsa", NULL, F_RAW,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default", .scope = "/home/u/.ssh/id_rsa"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/wsx/file", NULL, 0,
	  C(UNRESTRICTED), false, D, "verify:unrestricted:default"),   /* "/work/wsx" is not under "/work/ws" */
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "gen/x.c", NULL, F_BASE,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default", .scope = "/work/ws/sub/gen/x.c"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "../../etc/shadow", NULL, F_BASE,
	  C(UNRESTRICTED), false, D, "verify:unrestricted:default", .scope = "/work/etc/shadow"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "../../../home/u/.netrc", NULL, F_BASE,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default", .scope = "/home/u/.netrc"),
	ROW("repair", PLAIN, CW_OP_OPEN_WRITE, "./../sub/./.git/config", NULL, F_BASE,
	  C(PROTECTED_METADATA), false, D, "repair:protected_metadata:default", .scope = "/work/ws/sub/.git/config"),
	/* bytes kept as they are */
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/caf\xe9.txt", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default", .scope = "/work/ws/caf\xe9.txt"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/a\nb", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default", .scope = "/work/ws/a\nb"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/etc/\xff\xfe/x", NULL, 0,
	  C(UNRESTRICTED), false, D, "verify:unrestricted:default", .scope = "/etc/\xff\xfe/x"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/.git\n/config", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"), /* ".git\n" is not ".git" */
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/.env\n", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/home/u/.ssh/\xc3\x28", NULL, 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),

	/* ---- protected metadata and its near misses ---- */
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/.gitignore", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/.github/workflows/ci.yml", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/.gitmodules", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_FS_WRITE, "/work/ws/.git", NULL, 0,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default"), /* rm -rf .git */
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/vendor/lib/.git/config", NULL, 0,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/out/report.json.tmp", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/src/.capwatch", NULL, 0,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/.capwatchrc", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/home/u/proj/.git/config", NULL, 0,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default"),

	/* ---- rename and link: both ends, the stricter wins ---- */
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/a", "/work/ws/b", 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default", .scope = "/work/ws/a"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/hook.sh", "/work/ws/.git/hooks/pre-commit", 0,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default", .scope = "/work/ws/.git/hooks/pre-commit"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/.git", "/work/ws/git-old", 0,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default", .scope = "/work/ws/.git"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/tmp/cw-scratch/obj.o", "/work/ws/obj.o", 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default", .scope = "/work/ws/obj.o"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/tmp/cw-scratch/a", "/tmp/cw-scratch/b", 0,
	  NONE_CAP, false, A, "builtin:scratch"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/x", "/etc/cron.d/x", 0,
	  C(UNRESTRICTED), false, D, "verify:unrestricted:default", .scope = "/etc/cron.d/x"),
	/* A directory above the report (/work/ws/out/report.json) may be
	 * neither moved (either end) nor removed, lest another take its
	 * name (red team 22, e190); its mode and times are ordinary, and so
	 * are its neighbours and the directories beside it. */
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/out", "/work/ws/out.real", 0,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default", .scope = "/work/ws/out"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/fake", "/work/ws/out", F_EXCHANGE,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default", .scope = "/work/ws/out"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws", "/work/ws2", 0,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default", .scope = "/work/ws"),
	ROW("verify", PLAIN, CW_OP_FS_WRITE, "/work/ws/out", NULL, F_UNLINK,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default", .scope = "/work/ws/out"),
	/* A symlink the report's name is walked through, ".." after it. */
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/new", "/work/ws/link", 0,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default", .scope = "/work/ws/link"),
	ROW("verify", PLAIN, CW_OP_FS_WRITE, "/work/ws/link", NULL, F_UNLINK,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default", .scope = "/work/ws/link"),
	ROW("verify", PLAIN, CW_OP_FS_WRITE, "/work/ws/lin", NULL, F_UNLINK,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_FS_WRITE, "/work/ws/out", NULL, 0, /* chmod, utime */
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default", .scope = "/work/ws/out"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/out/a.txt", "/work/ws/out/b.txt", 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/outer", "/work/ws/o", 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_FS_WRITE, "/work/ws/out/sub", NULL, F_UNLINK,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("observe", PLAIN, CW_OP_RENAME, "/work/ws/out", "/work/ws/o", 0,
	  C(PROTECTED_METADATA), false, A, "observe:protected_metadata:default", .flagged = true),
	ROW("observe", PLAIN, CW_OP_RENAME, "/work/ws/x", "/work/ws/.git/config", 0,
	  C(PROTECTED_METADATA), false, A, "observe:protected_metadata:default", .flagged = true),
	ROW("scoped", PLAIN, CW_OP_RENAME, "/work/ws/a.lock", "/etc/a", 0,
	  C(UNRESTRICTED), false, D, "scoped:unrestricted:default"), /* deny beats ask */
	ROW("scoped", PLAIN, CW_OP_RENAME, "/work/ws/Cargo.lock", "/work/ws/b", 0,
	  C(WORKSPACE_WRITE), false, Q, "scoped:workspace_write:ask[0]"), /* ask beats allow */

	/* ---- secrets under another name: rename and link read the source ---- */
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/.env", "/work/ws/notes.txt", 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default", .scope = "/work/ws/.env"),
	ROW("observe", PLAIN, CW_OP_RENAME, "/work/ws/.env", "/work/ws/notes.txt", 0,
	  C(FILESYSTEM_READ), true, A, "observe:filesystem_read_secret:default", .flagged = true),
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/certs/server.pem", "/work/ws/certs/server.txt", 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	/* to another secret name: it stays a secret */
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/.env.tmp", "/work/ws/.env", 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/.ssh/id_work", "/work/ws/.ssh/id_work.pub", 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	/* a directory whose keys are secrets by its name (.ssh), or a home's
	 * secret tree or a directory above it */
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/deploy/.ssh", "/work/ws/deploy/keys", 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default", .scope = "/work/ws/deploy/.ssh"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/deploy/.ssh", "/work/ws/other/.ssh", 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/home/u/.ssh", "/home/u/ssh-old", 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default", .scope = "/home/u/.ssh"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/home/u/.docker", "/home/u/docker", 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default", .scope = "/home/u/.docker"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/home/u/.aws/credentials", "/work/ws/.env", 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/home/other", "/work/ws/other", 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	/* a directory holding .env moves it under the same name: no secret read */
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/app", "/work/ws/app.old", 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/.envs", "/work/ws/envs", 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	/* RENAME_EXCHANGE moves both ends */
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/notes.txt", "/work/ws/.env", F_EXCHANGE,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default", .scope = "/work/ws/.env"),
	ROW("verify", PLAIN, CW_OP_RENAME, "/work/ws/notes.txt", "/work/ws/.env", 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	/* a read of a file that is the same inode as a known secret */
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/notes.txt", NULL, F_ALIAS,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default", .scope = "/work/ws/notes.txt"),
	ROW("observe", PLAIN, CW_OP_OPEN_READ, "/work/ws/notes.txt", NULL, F_ALIAS,
	  C(FILESYSTEM_READ), true, A, "observe:filesystem_read_secret:default", .flagged = true),

	/* ---- secrets: near misses that are not ---- */
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/.ssh/id_rsa.pub", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/home/u/.ssh/id_rsa.pub", NULL, 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"), /* all of ~/.ssh */
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/id_rsa", NULL, 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/id_ecdsa", NULL, 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/id_rsa_test.go", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/.envrc", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/env", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	/* committed templates are not secrets (contract section 2) */
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/.env.example", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/.env.sample", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/.env.examples", NULL, 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	/* *.pem and *.key: secrets by name until the supervisor read them
	 * whole and found no private key (a certificate); a .pem in a home's
	 * secret place or an id_* key stays a secret whatever it holds */
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/tls/server.key", NULL, 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/tls/server.pem", NULL, F_KEYFREE,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/opt/py/site-packages/certifi/cacert.pem", NULL, F_KEYFREE,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/home/u/.ssh/deploy.pem", NULL, F_KEYFREE,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/.ssh/id_rsa.pem", NULL, F_KEYFREE,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/.env", NULL, F_KEYFREE,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/server.pem.txt", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/.pem", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	/* a workspace name of an object with another name made before the run is
	 * a write outside the workspace; pseudo-devices stay pseudo-devices */
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/notes.txt", NULL, F_ALIAS,
	  C(UNRESTRICTED), false, D, "verify:unrestricted:default"),
	ROW("observe", PLAIN, CW_OP_FS_WRITE, "/work/ws/notes.txt", NULL, F_ALIAS,
	  C(UNRESTRICTED), false, A, "observe:unrestricted:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/dev/null", NULL, F_ALIAS,
	  NONE_CAP, false, A, "builtin:pseudo-device"),
	/* public CA certificates are not secrets; private keys next to them are */
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/etc/ssl/certs/ca-certificates.pem", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("readonly", PLAIN, CW_OP_OPEN_READ, "/usr/share/ca-certificates/mozilla/x.pem", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "readonly:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/etc/ssl/private/server.pem", NULL, 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/etc/ssl/certsx/server.pem", NULL, 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/home/u/.sshd/x", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/home/u/.kube/config.bak", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/home/u/.docker/daemon.json", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/homes/u/.aws/credentials", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/work/ws/.aws/credentials", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "verify:filesystem_read:default"), /* only under a home */
	ROW("verify", PLAIN, CW_OP_OPEN_READ, "/home/u/.env.local", NULL, 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	ROW("scoped", PLAIN, CW_OP_OPEN_READ, "/work/ws/test/fixtures/cert.pem", NULL, 0,
	  C(FILESYSTEM_READ), true, A, "scoped:filesystem_read_secret:allow[0]"),
	ROW("scoped", PLAIN, CW_OP_OPEN_READ, "/work/ws/test/fixtures/sub/cert.pem", NULL, 0,
	  C(FILESYSTEM_READ), true, D, "scoped:filesystem_read_secret:default"), /* "*" stays in one component */

	/* ---- pseudo-devices and scratch need no capability, whatever the profile ---- */
	ROW("readonly", PLAIN, CW_OP_OPEN_WRITE, "/dev/null", NULL, 0, NONE_CAP, false, A, "builtin:pseudo-device"),
	ROW("none", PLAIN, CW_OP_OPEN_WRITE, "/dev/tty", NULL, 0, NONE_CAP, false, A, "builtin:pseudo-device"),
	ROW("readonly", PLAIN, CW_OP_OPEN_WRITE, "/dev/stdout", NULL, 0, NONE_CAP, false, A, "builtin:pseudo-device"),
	ROW("readonly", PLAIN, CW_OP_OPEN_WRITE, "/dev/stderr", NULL, 0, NONE_CAP, false, A, "builtin:pseudo-device"),
	ROW("readonly", PLAIN, CW_OP_OPEN_WRITE, "/dev/fd/1", NULL, 0, NONE_CAP, false, A, "builtin:pseudo-device"),
	ROW("readonly", PLAIN, CW_OP_OPEN_WRITE, "/dev/pts/3", NULL, 0, NONE_CAP, false, A, "builtin:pseudo-device"),
	ROW("readonly", PLAIN, CW_OP_OPEN_WRITE, "/proc/self/fd/2", NULL, 0, NONE_CAP, false, A, "builtin:pseudo-device"),
	ROW("readonly", PLAIN, CW_OP_OPEN_READ, "/dev/urandom", NULL, 0, NONE_CAP, false, A, "builtin:pseudo-device"),
	ROW("none", PLAIN, CW_OP_OPEN_READ, "/dev/zero", NULL, 0, NONE_CAP, false, A, "builtin:pseudo-device"),
	ROW("readonly", PLAIN, CW_OP_OPEN_WRITE, "/proc/self/fd/3/x", NULL, 0,
	  C(UNRESTRICTED), false, D, "readonly:unrestricted:default"), /* through a dir fd: not a device */
	ROW("readonly", PLAIN, CW_OP_OPEN_WRITE, "/dev/sda", NULL, 0,
	  C(UNRESTRICTED), false, D, "readonly:unrestricted:default"),
	ROW("readonly", PLAIN, CW_OP_OPEN_WRITE, "/dev/null/../sda", NULL, F_RAW,
	  C(UNRESTRICTED), false, D, "readonly:unrestricted:default", .scope = "/dev/sda"),
	ROW("readonly", PLAIN, CW_OP_OPEN_WRITE, "/tmp/cw-scratch/cc1.s", NULL, 0, NONE_CAP, false, A, "builtin:scratch"),
	ROW("readonly", PLAIN, CW_OP_FS_WRITE, "/tmp/cw-scratch", NULL, 0, NONE_CAP, false, A, "builtin:scratch"),
	ROW("none", PLAIN, CW_OP_OPEN_READ, "/tmp/cw-scratch/x", NULL, 0, NONE_CAP, false, A, "builtin:scratch"),
	ROW("readonly", PLAIN, CW_OP_OPEN_WRITE, "/tmp/cw-scratch-other/x", NULL, 0,
	  C(UNRESTRICTED), false, D, "readonly:unrestricted:default"),
	ROW("readonly", PLAIN, CW_OP_OPEN_WRITE, "/tmp/x", NULL, 0,
	  C(UNRESTRICTED), false, D, "readonly:unrestricted:default"),
	ROW("verify", PLAIN, CW_OP_OPEN_WRITE, "/tmp/cw-scratch/repo/.git/config", NULL, 0,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default"), /* protected beats scratch */

	/* ---- networks: families, unix sockets, AF_UNSPEC ---- */
	ROW("verify", PLAIN, CW_OP_CONNECT, "203.0.113.7:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, Q, "verify:external_network:default", .scope = "203.0.113.7:443"),
	ROW("verify", PLAIN, CW_OP_CONNECT, "[2001:db8::1]:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, Q, "verify:external_network:default", .scope = "[2001:db8::1]:443"),
	ROW("verify", PLAIN, CW_OP_CONNECT, "[::ffff:127.0.0.1]:80", NULL, 0,
	  C(ISOLATED_LOOPBACK), false, A, "verify:isolated_loopback:default", .scope = "[::ffff:127.0.0.1]:80"),
	ROW("verify", PLAIN, CW_OP_CONNECT, "128.0.0.1:80", NULL, 0,
	  C(EXTERNAL_NETWORK), false, Q, "verify:external_network:default"),
	ROW("verify", PLAIN, CW_OP_CONNECT, "[::2]:80", NULL, 0,
	  C(EXTERNAL_NETWORK), false, Q, "verify:external_network:default"),
	ROW("verify", PLAIN, CW_OP_CONNECT, "[::127.0.0.1]:80", NULL, 0,
	  C(EXTERNAL_NETWORK), false, Q, "verify:external_network:default"), /* IPv4-compatible is not mapped */
	ROW("verify", PLAIN, CW_OP_CONNECT, "unix:/tmp/cw-scratch/agent.sock", NULL, 0,
	  NONE_CAP, false, A, "builtin:scratch"),
	/* E48: a socket file the tree did not make (op.alias): its server is
	 * outside capwatch, in the workspace or the scratch directory alike */
	ROW("verify", PLAIN, CW_OP_CONNECT, "unix:/work/ws/.run/dev.sock", NULL, F_ALIAS,
	  C(PROCESS_CONTROL), false, D, "verify:process_control:default", .scope = "unix:/work/ws/.run/dev.sock"),
	ROW("verify", PLAIN, CW_OP_SEND, "unix:/tmp/cw-scratch/agent.sock", NULL, F_ALIAS,
	  C(PROCESS_CONTROL), false, D, "verify:process_control:default"),
	ROW("observe", PLAIN, CW_OP_CONNECT, "unix:/work/ws/.run/dev.sock", NULL, F_ALIAS,
	  C(PROCESS_CONTROL), false, A, "observe:process_control:default"),
	ROW("verify", PLAIN, CW_OP_CONNECT, "unix:/work/ws/../../var/run/docker.sock", NULL, 0,
	  C(PROCESS_CONTROL), false, D, "verify:process_control:default", .scope = "unix:/var/run/docker.sock"),
	ROW("verify", PLAIN, CW_OP_CONNECT, "unix:run/x.sock", NULL, 0,
	  C(PROCESS_CONTROL), false, D, "verify:process_control:default", .scope = "unix:run/x.sock"),
	ROW("verify", PLAIN, CW_OP_CONNECT, "unix:@\\x00weird", NULL, 0,
	  C(PROCESS_CONTROL), false, D, "verify:process_control:default", .scope = "unix:@\\x00weird"),
	ROW("verify", PLAIN, CW_OP_CONNECT, "unix:", NULL, 0, NONE_CAP, false, A, "builtin:unnamed-socket"),
	/* bind with no name: the kernel's autobind to an abstract name (F4) */
	BIND5(BIND, "unix:"),
	ROW("readonly", PLAIN, CW_OP_BIND, "unix:", NULL, 0, C(HOST_VISIBLE_BINDING), false, D,
	  "readonly:host_visible_binding:default", .scope = "unix:@(autobind)"),
	ROW("verify", PLAIN, CW_OP_LISTEN, "unix:", NULL, 0, NONE_CAP, false, A, "builtin:unnamed-socket"),
	ROW("verify", PLAIN, CW_OP_CONNECT, "family:0", NULL, 0, NONE_CAP, false, A, "builtin:unspec"),
	ROW("verify", PLAIN, CW_OP_CONNECT, "203.0.113.7:53", NULL, F_UNSPEC, NONE_CAP, false, A, "builtin:unspec"),
	ROW("verify", PLAIN, CW_OP_SEND, "203.0.113.7:53", NULL, F_UNSPEC,
	  C(EXTERNAL_NETWORK), false, Q, "verify:external_network:default", .scope = "203.0.113.7:53"), /* udp_sendmsg */
	ROW("verify", PLAIN, CW_OP_BIND, "0.0.0.0:80", NULL, F_UNSPEC,
	  C(HOST_VISIBLE_BINDING), false, D, "verify:host_visible_binding:default"), /* inet_bind */
	ROW("observe", PLAIN, CW_OP_CONNECT, "family:10", NULL, 0,
	  C(UNRESTRICTED), false, A, "observe:unrestricted:default", .scope = "family:10"), /* short inet6 */
	ROW("verify", PLAIN, CW_OP_CONNECT, "family:16", NULL, 0,
	  C(UNRESTRICTED), false, D, "verify:unrestricted:default", .scope = "family:16"), /* netlink */
	ROW("verify", PLAIN, CW_OP_BIND, "unix:/work/ws/run/srv.sock", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default", .scope = "/work/ws/run/srv.sock"),
	ROW("readonly", PLAIN, CW_OP_BIND, "unix:/work/ws/run/srv.sock", NULL, 0,
	  C(WORKSPACE_WRITE), false, D, "readonly:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_BIND, "unix:/run/evil.sock", NULL, 0,
	  C(UNRESTRICTED), false, D, "verify:unrestricted:default", .scope = "/run/evil.sock"),
	ROW("verify", PLAIN, CW_OP_BIND, "unix:/tmp/cw-scratch/s", NULL, 0, NONE_CAP, false, A, "builtin:scratch"),
	ROW("verify", PLAIN, CW_OP_LISTEN, "unix:/work/ws/.git/hooks/fsmonitor", NULL, 0,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default"),
	ROW("verify", PLAIN, CW_OP_LISTEN, "unix:/work/ws/.git/fsmonitor--daemon.ipc", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "verify:workspace_write:default"),
	ROW("verify", PLAIN, CW_OP_CONNECT, "203.0.113.7:443", "pkgs.example.com", 0,
	  C(EXTERNAL_NETWORK), false, Q, "verify:external_network:default", .scope = "203.0.113.7:443"),

	/* ---- signals, tracing ---- */
	ROW("readonly", PLAIN, CW_OP_SIGNAL, "4242", NULL, F_INTREE, NONE_CAP, false, A, "builtin:own-tree", .scope = "4242"),
	ROW("readonly", PLAIN, CW_OP_PROC_ACCESS, "4243", NULL, F_INTREE, NONE_CAP, false, A, "builtin:own-tree"),
	ROW("verify", PLAIN, CW_OP_SIGNAL, "-1", NULL, 0,
	  C(PROCESS_CONTROL), false, D, "verify:process_control:default", .scope = "-1"),
	ROW("verify", PLAIN, CW_OP_PROC_ACCESS, "1", NULL, 0,
	  C(PROCESS_CONTROL), false, D, "verify:process_control:default", .scope = "1"),

	/* ---- escapes ---- */
	ROW("verify", PLAIN, CW_OP_ESCAPE_SYSCALL, "setns", NULL, 0,
	  C(UNRESTRICTED), false, D, "verify:unrestricted:default", .scope = "setns"),
	ROW("repair", PLAIN, CW_OP_ESCAPE_SYSCALL, "kexec_load", NULL, 0,
	  C(UNRESTRICTED), false, D, "repair:unrestricted:default", .scope = "kexec_load"),
	ROW("scoped", PLAIN, CW_OP_ESCAPE_SYSCALL, "personality", NULL, 0,
	  C(UNRESTRICTED), false, A, "scoped:unrestricted:allow[1]"),
	ROW("scoped", PLAIN, CW_OP_OPEN_WRITE, "/opt/cache/a/b", NULL, 0,
	  C(UNRESTRICTED), false, A, "scoped:unrestricted:allow[0]"),

	/* ---- approvals: ask may become allow, deny never does ---- */
	ROW("verify", RISK, CW_OP_CONNECT, "203.0.113.7:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, A, "approval:approve-risk"),
	ROW("readonly", RISK, CW_OP_CONNECT, "203.0.113.7:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, D, "readonly:external_network:default"),
	ROW("repair", RISK, CW_OP_CONNECT, "203.0.113.7:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, D, "repair:external_network:default"),
	ROW("verify", RISK, CW_OP_OPEN_WRITE, "/work/ws/.git/config", NULL, 0,
	  C(PROTECTED_METADATA), false, D, "verify:protected_metadata:default"),
	ROW("verify", RISK, CW_OP_OPEN_READ, "/home/u/.ssh/id_rsa", NULL, 0,
	  C(FILESYSTEM_READ), true, D, "verify:filesystem_read_secret:default"),
	ROW("verify", RISK, CW_OP_ESCAPE_SYSCALL, "mount", NULL, 0,
	  C(UNRESTRICTED), false, D, "verify:unrestricted:default"),
	ROW("askall", RISK, CW_OP_ESCAPE_SYSCALL, "mount", NULL, 0,
	  C(UNRESTRICTED), false, A, "approval:approve-risk"),
	ROW("askall", RISK, CW_OP_OPEN_READ, "/home/u/.aws/credentials", NULL, 0,
	  C(FILESYSTEM_READ), true, A, "approval:approve-risk"),
	ROW("scoped", RISK, CW_OP_CONNECT, "203.0.113.66:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, D, "scoped:external_network:deny[0]"),
	ROW("scoped", RISK, CW_OP_CONNECT, "198.51.100.7:22", NULL, 0,
	  C(EXTERNAL_NETWORK), false, A, "approval:approve-risk"),
	ROW("verify", GRANT, CW_OP_CONNECT, "203.0.113.9:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, A, "approval:--approve external_network:203.0.113.0/24:443"),
	ROW("verify", GRANT, CW_OP_CONNECT, "[::ffff:203.0.113.9]:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, A, "approval:--approve external_network:203.0.113.0/24:443"),
	ROW("verify", GRANT, CW_OP_CONNECT, "203.0.113.9:80", NULL, 0,
	  C(EXTERNAL_NETWORK), false, Q, "verify:external_network:default"),
	ROW("verify", GRANT, CW_OP_CONNECT, "198.51.100.1:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, Q, "verify:external_network:default"),
	ROW("readonly", GRANT, CW_OP_OPEN_WRITE, "/work/ws/gen/x.c", NULL, 0,
	  C(WORKSPACE_WRITE), false, D, "readonly:workspace_write:default"), /* a grant never beats deny */
	ROW("askall", GRANT, CW_OP_OPEN_WRITE, "/work/ws/gen/x.c", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "approval:--approve workspace_write:/work/ws/gen/**"),
	ROW("askall", GRANT, CW_OP_OPEN_WRITE, "/work/ws/src/x.c", NULL, 0,
	  C(WORKSPACE_WRITE), false, Q, "askall:workspace_write:default"),
	ROW("askall", GRANT, CW_OP_OPEN_READ, "/work/ws/src/x.c", NULL, 0,
	  C(FILESYSTEM_READ), false, A, "approval:--approve filesystem_read"),
	ROW("askall", GRANT, CW_OP_OPEN_READ, "/work/ws/.env", NULL, 0,
	  C(FILESYSTEM_READ), true, Q, "askall:filesystem_read_secret:default"), /* scope-less grant skips secrets */
	ROW("askall", GRANT, CW_OP_ENV, "CI", NULL, 0,
	  C(ENVIRONMENT), false, A, "approval:--approve environment:CI"),
	ROW("askall", GRANT, CW_OP_ENV, "CI,AWS_SECRET_ACCESS_KEY", NULL, 0,
	  C(ENVIRONMENT), false, Q, "askall:environment:default"),
	ROW("verify", GRANT_NET, CW_OP_CONNECT, "198.51.100.1:22", NULL, 0,
	  C(EXTERNAL_NETWORK), false, A, "approval:--approve external_network"),
	ROW("repair", GRANT_NET, CW_OP_CONNECT, "198.51.100.1:22", NULL, 0,
	  C(EXTERNAL_NETWORK), false, D, "repair:external_network:default"),
	ROW("verify", GRANT_NET, CW_OP_CONNECT, "127.0.0.1:22", NULL, 0,
	  C(ISOLATED_LOOPBACK), false, A, "verify:isolated_loopback:default"),
	ROW("verify", NOCTX, CW_OP_CONNECT, "203.0.113.7:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, Q, "verify:external_network:default"),

	/* ---- scoped rules: deny scopes, then ask, then allow, then the default ---- */
	ROW("scoped", PLAIN, CW_OP_CONNECT, "203.0.113.66:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, D, "scoped:external_network:deny[0]"),
	ROW("scoped", PLAIN, CW_OP_CONNECT, "203.0.113.67:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, A, "scoped:external_network:allow[1]"),
	ROW("scoped", PLAIN, CW_OP_CONNECT, "203.0.113.67:80", NULL, 0,
	  C(EXTERNAL_NETWORK), false, D, "scoped:external_network:default"),
	ROW("scoped", PLAIN, CW_OP_CONNECT, "198.51.100.7:22", NULL, 0,
	  C(EXTERNAL_NETWORK), false, Q, "scoped:external_network:ask[0]"),
	ROW("scoped", PLAIN, CW_OP_SEND, "[2001:db8:ffff::53]:53", NULL, 0,
	  C(EXTERNAL_NETWORK), false, A, "scoped:external_network:allow[2]"),
	ROW("scoped", PLAIN, CW_OP_CONNECT, "[2001:db9::1]:53", NULL, 0,
	  C(EXTERNAL_NETWORK), false, D, "scoped:external_network:default"),
	ROW("scoped", PLAIN, CW_OP_CONNECT, "198.51.100.9:443", "pkgs.example.com", 0,
	  C(EXTERNAL_NETWORK), false, D, "scoped:external_network:default"), /* a claimed host name grants nothing */
	/* host-name scopes match the supervisor's own resolutions, by address and port */
	ROW("scoped", HOSTS, CW_OP_CONNECT, "198.51.100.9:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, A, "scoped:external_network:allow[0] host pkgs.example.com"),
	ROW("scoped", HOSTS, CW_OP_CONNECT, "[::ffff:198.51.100.9]:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, A, "scoped:external_network:allow[0] host pkgs.example.com"),
	ROW("scoped", HOSTS, CW_OP_SEND, "198.51.100.9:80", NULL, 0,
	  C(EXTERNAL_NETWORK), false, D, "scoped:external_network:default"), /* other port */
	ROW("scoped", HOSTS, CW_OP_CONNECT, "198.51.100.10:443", "pkgs.example.com", 0,
	  C(EXTERNAL_NETWORK), false, D, "scoped:external_network:default"), /* not a resolved address */
	ROW("scoped", HOSTS, CW_OP_CONNECT, "192.0.2.44:80", NULL, 0,
	  C(EXTERNAL_NETWORK), false, A, "scoped:external_network:allow[3] host a.mirror.example.org"),
	ROW("scoped", HOSTS, CW_OP_CONNECT, "192.0.2.44:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, D, "scoped:external_network:default"),
	ROW("scoped", HOSTS, CW_OP_CONNECT, "[2001:db8:5::1]:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, A, "scoped:external_network:allow[0] host pkgs.example.com"),
	ROW("scoped", PLAIN, CW_OP_CONNECT, "192.0.2.44:80", "a.mirror.example.org", 0,
	  C(EXTERNAL_NETWORK), false, D, "scoped:external_network:default"), /* no resolutions: no match */
	ROW("verify", HOSTS, CW_OP_CONNECT, "198.51.100.9:443", NULL, 0,
	  C(EXTERNAL_NETWORK), false, Q, "verify:external_network:default"), /* no host scope in the profile */
	ROW("scoped", PLAIN, CW_OP_CONNECT, "127.0.0.1:6379", NULL, 0,
	  C(ISOLATED_LOOPBACK), false, D, "scoped:isolated_loopback:deny[0]"),
	ROW("scoped", PLAIN, CW_OP_CONNECT, "[::ffff:127.0.0.1]:6379", NULL, 0,
	  C(ISOLATED_LOOPBACK), false, D, "scoped:isolated_loopback:deny[0]"),
	ROW("scoped", PLAIN, CW_OP_CONNECT, "127.0.0.2:6379", NULL, 0,
	  C(ISOLATED_LOOPBACK), false, A, "scoped:isolated_loopback:default"),
	ROW("scoped", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/vendor/a/b.c", NULL, 0,
	  C(WORKSPACE_WRITE), false, D, "scoped:workspace_write:deny[0]"),
	ROW("scoped", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/vendor", NULL, 0,
	  C(WORKSPACE_WRITE), false, D, "scoped:workspace_write:deny[0]"),
	ROW("scoped", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/vendored/x", NULL, 0,
	  C(WORKSPACE_WRITE), false, A, "scoped:workspace_write:default"),
	ROW("scoped", PLAIN, CW_OP_OPEN_WRITE, "/work/ws/sub/Cargo.lock", NULL, 0,
	  C(WORKSPACE_WRITE), false, Q, "scoped:workspace_write:ask[0]"),
	ROW("scoped", PLAIN, CW_OP_EXEC, "/usr/bin/curl", NULL, 0,
	  C(PROCESS_SPAWN), false, D, "scoped:process_spawn:deny[0]"),
	ROW("scoped", PLAIN, CW_OP_EXEC, "/opt/bin/wget", NULL, 0,
	  C(PROCESS_SPAWN), false, D, "scoped:process_spawn:deny[1]"),
	ROW("scoped", PLAIN, CW_OP_EXEC, "/usr/bin/curl-config", NULL, 0,
	  C(PROCESS_SPAWN), false, A, "scoped:process_spawn:default"),
	ROW("scoped", PLAIN, CW_OP_CONNECT, "unix:/run/user/1000/bus", NULL, 0,
	  C(PROCESS_CONTROL), false, A, "scoped:process_control:allow[0]"),
	ROW("scoped", PLAIN, CW_OP_CONNECT, "unix:/run/user/1000/x/bus", NULL, 0,
	  C(PROCESS_CONTROL), false, D, "scoped:process_control:default"),
	ROW("scoped", PLAIN, CW_OP_ENV, "CI,NPM_TOKEN", NULL, 0,
	  C(ENVIRONMENT), false, A, "scoped:environment:allow[0]"),
	ROW("scoped", PLAIN, CW_OP_ENV, "CI,AWS_PROFILE", NULL, 0,
	  C(ENVIRONMENT), false, D, "scoped:environment:deny[0]"),
	ROW("scoped", PLAIN, CW_OP_ENV, "CI,HOME", NULL, 0,
	  C(ENVIRONMENT), false, Q, "scoped:environment:default"),

	/* ---- what cannot be classified is denied, even under observe ---- */
	ROW("observe", PLAIN, CW_OP_OPEN_READ, NULL, NULL, F_NULL,
	  C(UNRESTRICTED), false, D, "builtin:unclassified", .rc = -EINVAL),
	ROW("observe", PLAIN, CW_OP_OPEN_WRITE, "relative/x", NULL, F_RAW,
	  C(UNRESTRICTED), false, D, "builtin:unclassified", .rc = -EINVAL),
	ROW("observe", PLAIN, CW_OP_RENAME, "/work/ws/a", NULL, 0,
	  C(UNRESTRICTED), false, D, "builtin:unclassified", .rc = -EINVAL),
	ROW("observe", PLAIN, CW_OP_CONNECT, NULL, NULL, F_NULL,
	  C(UNRESTRICTED), false, D, "builtin:unclassified", .rc = -EINVAL),
	ROW("observe", PLAIN, CW_OP_EXEC, NULL, NULL, F_NULL,
	  C(UNRESTRICTED), false, D, "builtin:unclassified", .rc = -EINVAL),
	ROW("observe", PLAIN, CW_OP_ESCAPE_SYSCALL, NULL, NULL, F_NULL,
	  C(UNRESTRICTED), false, D, "builtin:unclassified", .rc = -EINVAL),
	ROW("observe", PLAIN, CW_OP_ENV, NULL, NULL, F_NULL,
	  C(UNRESTRICTED), false, D, "builtin:unclassified", .rc = -EINVAL),
	ROW("observe", RISK, CW_OP_OPEN_READ, "/x", NULL, F_BADKIND,
	  C(UNRESTRICTED), false, D, "builtin:unclassified", .rc = -EINVAL),
};

static const char *describe(const struct row *r, char *buf, size_t sz)
{
	snprintf(buf, sz, "row [%s ctx%d %s \"%s\"%s%s]", r->prof, r->ctx, cw_op_name(r->kind),
		 r->a ? r->a : "(null)", r->b ? " -> " : "", r->b ? r->b : "");
	return buf;
}

static bool is_file_kind(cw_op_kind k)
{
	return k == CW_OP_OPEN_READ || k == CW_OP_OPEN_WRITE || k == CW_OP_FS_WRITE ||
	       k == CW_OP_RENAME || k == CW_OP_SYMLINK || k == CW_OP_EXEC;
}

static void run_row(void **state, const struct row *r)
{
	char what[512];
	describe(r, what, sizeof what);
	struct cw_context ctx = make_ctx(r->ctx);
	struct cw_op op = { .kind = r->kind, .syscall = "test" };
	char path[4096];
	struct sockaddr_storage ss;
	size_t len = 0;

	switch (r->kind) {
	case CW_OP_CONNECT: case CW_OP_SEND: case CW_OP_BIND: case CW_OP_LISTEN:
		if (!(r->flags & F_NULL)) {
			if (cw_addr_parse(r->a, &ss, &len) != 0)
				fail_msg("%s: address does not parse", what);
			if (r->flags & F_UNSPEC)
				ss.ss_family = AF_UNSPEC;
			op.addr = (const struct sockaddr *)&ss;
			op.addrlen = len;
		}
		op.host = r->b;
		break;
	case CW_OP_SIGNAL: case CW_OP_PROC_ACCESS:
		op.target_pid = atoi(r->a);
		op.target_in_tree = r->flags & F_INTREE;
		break;
	case CW_OP_ENV:
		op.env_names = r->a;
		break;
	case CW_OP_ESCAPE_SYSCALL:
		op.syscall = r->a;
		break;
	default:
		if ((r->flags & (F_RAW | F_NULL)) || !r->a) {
			op.path = r->a;
		} else {
			int rc = cw_path_normalize((r->flags & F_BASE) ? "/work/ws/sub" : NULL, r->a,
						   path, sizeof path);
			if (rc != 0)
				fail_msg("%s: normalize failed %d", what, rc);
			op.path = path;
		}
		op.path2 = r->b;
		break;
	}
	if (r->flags & F_ALIAS)
		op.alias = "hard link";
	if (r->flags & F_EXCHANGE)
		op.exchange = true;
	if (r->flags & F_KEYFREE)
		op.key_free = true;
	if (r->flags & F_UNLINK)
		op.syscall = "unlink";
	if (r->flags & F_BADKIND)
		op.kind = (cw_op_kind)(CW_OP__COUNT + 3);

	struct cw_decision d;
	memset(&d, 0xa5, sizeof d); /* decide must fill every field we read */
	int rc = cw_policy_decide(profile(state, r->prof), r->ctx == NOCTX ? NULL : &ctx, &op, &d);

	if (rc != r->rc)
		fail_msg("%s: rc %d, want %d", what, rc, r->rc);
	if (d.cap != r->cap)
		fail_msg("%s: capability %s, want %s (rule %s)", what, cw_cap_name(d.cap),
			 cw_cap_name(r->cap), d.rule);
	if (d.verdict != r->v)
		fail_msg("%s: verdict %s, want %s (rule %s)", what, cw_verdict_name(d.verdict),
			 cw_verdict_name(r->v), d.rule);
	if (strcmp(d.rule, r->rule) != 0)
		fail_msg("%s: rule \"%s\", want \"%s\"", what, d.rule, r->rule);
	if (d.secret != r->secret)
		fail_msg("%s: secret %d, want %d", what, d.secret, r->secret);
	if (d.flagged != r->flagged)
		fail_msg("%s: flagged %d, want %d", what, d.flagged, r->flagged);
	if (r->scope && strcmp(d.scope, r->scope) != 0)
		fail_msg("%s: scope \"%s\", want \"%s\"", what, d.scope, r->scope);

	/* invariants every decision keeps */
	if (d.verdict == CW_ALLOW) {
		if (d.err != 0 || d.next_action != CW_NEXT_NONE)
			fail_msg("%s: allowed with err %d / next %s", what, d.err, cw_next_action_name(d.next_action));
	} else {
		int want = is_file_kind(r->kind) && !(r->flags & F_BADKIND) ? EACCES : EPERM;
		if (d.err != want)
			fail_msg("%s: err %d, want %d", what, d.err, want);
		cw_next_action want_next = d.verdict == CW_ASK ? CW_NEXT_REQUEST_APPROVAL : CW_NEXT_CHANGE_COMMAND;
		if (d.next_action != want_next)
			fail_msg("%s: next action %s", what, cw_next_action_name(d.next_action));
	}
	if (d.verdict == CW_ALLOW && d.profile_verdict != CW_ALLOW) {
		/* only an approval may lift, and only from ask */
		if (d.profile_verdict != CW_ASK || d.source != CW_SOURCE_APPROVAL)
			fail_msg("%s: lifted %s to allow (source %s)", what,
				 cw_verdict_name(d.profile_verdict), cw_source_name(d.source));
	}
	if (d.verdict != CW_ALLOW && d.profile_verdict != d.verdict)
		fail_msg("%s: final %s differs from profile %s", what, cw_verdict_name(d.verdict),
			 cw_verdict_name(d.profile_verdict));
	size_t rl = strnlen(d.reason, sizeof d.reason);
	if (rl == 0 || rl == sizeof d.reason || memchr(d.reason, '\n', rl))
		fail_msg("%s: reason is not one line: \"%.*s\"", what, (int)rl, d.reason);
}

static void test_rows(void **state)
{
	size_t n = sizeof rows / sizeof rows[0];
	assert_true(n >= 170);
	for (size_t i = 0; i < n; i++)
		run_row(state, &rows[i]);
}

/* Every cell of the contract's section 3 table is exercised by rows above:
 * for each slot, every built-in profile appears with a ":default" rule. */
static void test_rows_cover_matrix(void **state)
{
	(void)state;
	for (const char *const *pn = cw_builtin_profile_names; *pn; pn++) {
		for (int s = 0; s < CW_SLOT__COUNT; s++) {
			char want[128];
			snprintf(want, sizeof want, "%s:%s:default", *pn, cw_slot_name(s));
			bool seen = false;
			for (size_t i = 0; i < sizeof rows / sizeof rows[0] && !seen; i++)
				seen = rows[i].ctx == PLAIN && strcmp(rows[i].rule, want) == 0;
			if (!seen)
				fail_msg("no row covers %s", want);
		}
	}
}

/* The reason of a decision names the profile and the capability, and the
 * approval reason when --approve-risk decided. */
static void test_reason_text(void **state)
{
	struct cw_context ctx = make_ctx(RISK);
	struct sockaddr_storage ss;
	size_t len;
	assert_int_equal(cw_addr_parse("203.0.113.7:443", &ss, &len), 0);
	struct cw_op op = { .kind = CW_OP_CONNECT, .addr = (struct sockaddr *)&ss, .addrlen = len,
			    .host = "pkgs.example.com" };
	struct cw_decision d;
	assert_int_equal(cw_policy_decide(profile(state, "verify"), &ctx, &op, &d), 0);
	assert_non_null(strstr(d.reason, "external_network"));
	assert_non_null(strstr(d.reason, "CI needs the registry"));
	assert_non_null(strstr(d.reason, "pkgs.example.com"));
	assert_int_equal(d.source, CW_SOURCE_APPROVAL);
	assert_int_equal(d.profile_verdict, CW_ASK);
	/* a host name is the target's text: it cannot put a line break in the reason */
	op.host = "evil\ncapwatch: forged";
	assert_int_equal(cw_policy_decide(profile(state, "verify"), &ctx, &op, &d), 0);
	assert_null(strchr(d.reason, '\n'));
	assert_non_null(strstr(d.reason, "evil?capwatch: forged"));

	struct cw_op w = { .kind = CW_OP_OPEN_WRITE, .path = "/work/ws/x" };
	assert_int_equal(cw_policy_decide(profile(state, "readonly"), &ctx, &w, &d), 0);
	assert_string_equal(d.reason, "readonly denies workspace_write");
	assert_int_equal(d.source, CW_SOURCE_CONFIGURED_POLICY);
	assert_int_equal(cw_policy_decide(NULL, &ctx, &w, &d), -EINVAL);
	assert_int_equal(d.verdict, CW_DENY);
	assert_int_equal(cw_policy_decide(profile(state, "verify"), &ctx, NULL, &d), -EINVAL);
	assert_int_equal(d.verdict, CW_DENY);
}

/* ---- names ------------------------------------------------------------------- */

static void test_names(void **state)
{
	(void)state;
	for (int k = 0; k < CW_CAP__COUNT; k++) {
		assert_non_null(cw_cap_name(k));
		assert_non_null(cw_cap_description(k));
		assert_int_equal(cw_cap_from_name(cw_cap_name(k)), k);
		assert_int_equal(cw_slot_from_name(cw_slot_name(k)), k);
	}
	assert_string_equal(cw_cap_name(CW_CAP_NONE), "none");
	assert_null(cw_cap_name(CW_CAP__COUNT));
	assert_string_equal(cw_cap_name(CW_CAP_EXTERNAL_NETWORK), "external_network");
	assert_string_equal(cw_slot_name(CW_SLOT_SECRET_READ), "filesystem_read_secret");
	assert_int_equal(cw_slot_from_name("filesystem_read_secret"), CW_SLOT_SECRET_READ);
	assert_int_equal(cw_cap_from_name("filesystem_read_secret"), -EINVAL);
	assert_int_equal(cw_cap_from_name("netwrk"), -EINVAL);
	assert_int_equal(cw_cap_from_name(NULL), -EINVAL);
	assert_null(cw_slot_name(CW_SLOT__COUNT));
	for (int o = 0; o < CW_OP__COUNT; o++)
		assert_int_equal(cw_op_from_name(cw_op_name(o)), o);
	assert_string_equal(cw_op_name(CW_OP_ENV), "environment");
	assert_int_equal(cw_op_from_name("opn"), -EINVAL);
	assert_null(cw_op_name(CW_OP__COUNT));
	assert_string_equal(cw_verdict_name(CW_ASK), "ask");
	assert_null(cw_verdict_name((cw_verdict)7));
	assert_string_equal(cw_next_action_name(CW_NEXT_REQUEST_APPROVAL), "request_approval");
	assert_string_equal(cw_next_action_name(CW_NEXT_ENABLE_SANDBOX), "enable_sandbox");
	assert_string_equal(cw_source_name(CW_SOURCE_PLATFORM_SANDBOX), "platform_sandbox");
	assert_string_equal(cw_source_name(CW_SOURCE_APPROVAL), "approval");
}

/* ---- paths ------------------------------------------------------------------- */

static void test_normalize(void **state)
{
	(void)state;
	static const struct { const char *base, *path, *want; int rc; } t[] = {
		{ NULL, "/", "/", 0 },
		{ NULL, "//", "/", 0 },
		{ NULL, "/..", "/", 0 },
		{ NULL, "/../..", "/", 0 },
		{ NULL, "/a/b/../c", "/a/c", 0 },
		{ NULL, "/a/./b/", "/a/b", 0 },
		{ NULL, "/a//b///c//", "/a/b/c", 0 },
		{ NULL, "/a/b/../../..", "/", 0 },
		{ NULL, "/a/...", "/a/...", 0 },
		{ NULL, "/a/..b/.c", "/a/..b/.c", 0 },
		{ "/work/ws", "x/y", "/work/ws/x/y", 0 },
		{ "/work/ws/", "./x", "/work/ws/x", 0 },
		{ "/work/ws", "..", "/work", 0 },
		{ "/work/ws", "../../../..", "/", 0 },
		{ "/work/ws", ".", "/work/ws", 0 },
		{ "/work/ws", "/abs", "/abs", 0 },
		{ "/work/../work/ws", "a", "/work/ws/a", 0 },
		{ NULL, "/a\xff\xfe/b\nc", "/a\xff\xfe/b\nc", 0 },
		{ NULL, "rel", NULL, -EINVAL },
		{ "rel", "x", NULL, -EINVAL },
		{ "/b", "", NULL, -EINVAL },
		{ NULL, NULL, NULL, -EINVAL },
	};
	char out[64];
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int rc = cw_path_normalize(t[i].base, t[i].path, out, sizeof out);
		if (rc != t[i].rc)
			fail_msg("normalize(%s, %s) = %d", t[i].base, t[i].path, rc);
		if (t[i].want && strcmp(out, t[i].want) != 0)
			fail_msg("normalize(%s, %s) = \"%s\", want \"%s\"", t[i].base, t[i].path, out, t[i].want);
	}
	/* sizes: exactly fits, one short, long intermediate that collapses */
	char small[5];
	assert_int_equal(cw_path_normalize(NULL, "/abc", small, sizeof small), 0);
	assert_string_equal(small, "/abc");
	assert_int_equal(cw_path_normalize(NULL, "/abcd", small, sizeof small), -ENAMETOOLONG);
	assert_int_equal(cw_path_normalize(NULL, "/a/bbbbbbbbbbbbbbbbbbbb/../../c", small, sizeof small), 0);
	assert_string_equal(small, "/c");
	assert_int_equal(cw_path_normalize(NULL, "/a/bbbbbbbbbbbbbbbbbbbb/x/..", small, sizeof small), -ENAMETOOLONG);
	char one[1];
	assert_int_equal(cw_path_normalize(NULL, "/", one, sizeof one), -ENAMETOOLONG);
	/* a PATH_MAX-long result */
	static char big[4200], res[4096];
	big[0] = '/';
	memset(big + 1, 'x', 4094);
	big[4095] = '\0';
	assert_int_equal(cw_path_normalize(NULL, big, res, sizeof res), 0);
	assert_int_equal(strlen(res), 4095);
	big[4095] = 'y';
	big[4096] = '\0';
	assert_int_equal(cw_path_normalize(NULL, big, res, sizeof res), -ENAMETOOLONG);
}

/* cw_path_join: the same join, ".." kept (names as the kernel walks them). */
static void test_join(void **state)
{
	(void)state;
	static const struct { const char *base, *path, *want; int rc; } t[] = {
		{ "/ws", "sub/../report.json", "/ws/sub/../report.json", 0 },
		{ "/ws/", "./a//./b/", "/ws/a/b", 0 },
		{ "/ws", "..", "/ws/..", 0 },
		{ "/ws", "/abs/../x", "/abs/../x", 0 },
		{ NULL, "/", "/", 0 },
		{ NULL, "rel", NULL, -EINVAL },
	};
	char out[64];
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int rc = cw_path_join(t[i].base, t[i].path, out, sizeof out);
		if (rc != t[i].rc)
			fail_msg("join(%s, %s) = %d", t[i].base, t[i].path, rc);
		if (t[i].want && strcmp(out, t[i].want) != 0)
			fail_msg("join(%s, %s) = \"%s\", want \"%s\"", t[i].base, t[i].path, out, t[i].want);
	}
	/* "/ws/sub/../r" is under "/ws/sub": the symlink is a directory above */
	assert_true(cw_path_is_under("/ws/sub/../r", "/ws/sub"));
	assert_false(cw_path_is_under("/ws/sub/../r", "/ws/su"));
}

static void test_is_under(void **state)
{
	(void)state;
	static const struct { const char *path, *root; bool want; } t[] = {
		{ "/a/b", "/a/b", true },
		{ "/a/b/c", "/a/b", true },
		{ "/a/bc", "/a/b", false },
		{ "/a", "/a/b", false },
		{ "/x", "/", true },
		{ "/", "/", true },
		{ "/a/b/c", "/a/b/", true },
		{ "/a/bc", "/a/b/", false },
		{ "a/b", "/a", false },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (cw_path_is_under(t[i].path, t[i].root) != t[i].want)
			fail_msg("is_under(%s, %s) != %d", t[i].path, t[i].root, t[i].want);
	assert_false(cw_path_is_under(NULL, "/"));
}

static void test_classify(void **state)
{
	(void)state;
	struct cw_context ctx = make_ctx(PLAIN);
	static const struct { const char *path; cw_path_class want; } t[] = {
		{ "/dev/null", CW_PATH_PSEUDO_DEVICE },
		{ "/dev/full", CW_PATH_PSEUDO_DEVICE },
		{ "/dev/random", CW_PATH_PSEUDO_DEVICE },
		{ "/dev/stdin", CW_PATH_PSEUDO_DEVICE },
		{ "/dev/fd/12", CW_PATH_PSEUDO_DEVICE },
		{ "/dev/fd/", CW_PATH_OUTSIDE },
		{ "/dev/fd/x", CW_PATH_OUTSIDE },
		{ "/proc/thread-self/fd/0", CW_PATH_PSEUDO_DEVICE },
		{ "/proc/1/fd/0", CW_PATH_OUTSIDE },
		{ "/dev/nullx", CW_PATH_OUTSIDE },
		{ "/work/ws/.git", CW_PATH_PROTECTED },
		{ "/work/ws/.git/objects/ab/cdef", CW_PATH_WORKSPACE },
		{ "/work/ws/.git/hooks/pre-push", CW_PATH_PROTECTED },
		{ "/work/ws/.git", CW_PATH_PROTECTED },
		{ "/work/ws/.gitattributes", CW_PATH_WORKSPACE },
		{ "/work/ws/x.git/y", CW_PATH_WORKSPACE },
		{ "/var/tmp/trace.jsonl", CW_PATH_PROTECTED },
		{ "/tmp/cw-scratch/a", CW_PATH_SCRATCH },
		{ "/srv/second", CW_PATH_WORKSPACE },
		{ "/srv/secondary", CW_PATH_OUTSIDE },
		{ "/", CW_PATH_OUTSIDE },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (cw_path_classify(&ctx, t[i].path) != t[i].want)
			fail_msg("classify(%s) = %d, want %d", t[i].path,
				 cw_path_classify(&ctx, t[i].path), t[i].want);
	/* no context: nothing is a workspace */
	assert_int_equal(cw_path_classify(NULL, "/work/ws/a"), CW_PATH_OUTSIDE);
	assert_int_equal(cw_path_classify(NULL, "/dev/null"), CW_PATH_PSEUDO_DEVICE);
	/* secrets without a home in the context still cover /root and /home/X */
	assert_true(cw_path_is_secret(NULL, "/root/.aws/config"));
	assert_true(cw_path_is_secret(NULL, "/home/x/.ssh/config"));
	assert_false(cw_path_is_secret(NULL, "/home/.ssh/config"));
	struct cw_context other = make_ctx(PLAIN);
	other.home = "/var/lib/builder";
	assert_true(cw_path_is_secret(&other, "/var/lib/builder/.git-credentials"));
	assert_false(cw_path_is_secret(&ctx, "/var/lib/builder/.git-credentials"));
}

static void test_glob(void **state)
{
	(void)state;
	struct cw_context ctx = make_ctx(PLAIN);
	static const struct { const char *glob, *path; bool want; } t[] = {
		{ "/work/ws/*.c", "/work/ws/a.c", true },
		{ "/work/ws/*.c", "/work/ws/sub/a.c", false },
		{ "/work/ws/**", "/work/ws/sub/a.c", true },
		{ "/work/ws/**", "/work/ws", true },
		{ "/work/ws/**", "/work/wsx", false },
		{ "/work/**/a.c", "/work/a.c", true },
		{ "/work/**/a.c", "/work/x/y/a.c", true },
		{ "/work/**/a.c", "/work/x/ya.c", false },
		{ "**/*.pem", "/a/b/c.pem", true },
		{ "**/*.pem", "/c.pem", true },
		{ "**", "/anything/at/all", true },
		{ "/a/?.c", "/a/b.c", true },
		{ "/a/?.c", "/a/bb.c", false },
		{ "/a/?", "/a//", false },
		{ "/a/*", "/a/", true },
		{ "/a/*/c", "/a/b/c", true },
		{ "/a/*/c", "/a/b/x/c", false },
		{ "/a/\\*", "/a/*", true },
		{ "/a/\\*", "/a/b", false },
		{ "~/.cache/**", "/home/u/.cache/pip/x", true },
		{ "~/.cache/**", "/home/uu/.cache/pip/x", false },
		{ "~", "/home/u", true },
		{ "~/**", "/home/u", true },
		{ "~/x", "/home/ux", false },
		{ "/exact", "/exact", true },
		{ "/exact", "/exactly", false },
		{ "*", "name", true },
		{ "NPM_*", "NPM_TOKEN", true },
		{ "NPM_*", "XNPM_TOKEN", false },
		{ "/a/**/b/**", "/a/b", true },
		{ "/a/**/b/**", "/a/x/b/y/z", true },
		{ "/a/**/b", "/a/xb", false },
		{ "/a**", "/a/b/c", true },
		{ "/a/*/**", "/a/b", true },
		{ "/a/*/**", "/a", false },
		{ "", "", true },
		{ "", "/", false },
		{ "/a\\", "/a\\", true },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (cw_path_glob_match(&ctx, t[i].glob, t[i].path) != t[i].want)
			fail_msg("glob(%s, %s) != %d", t[i].glob, t[i].path, t[i].want);
	assert_false(cw_path_glob_match(NULL, "~/x", "/home/u/x"));

	/* Many stars against a long path the target chose: must stay linear
	 * (a backtracking matcher takes hours here). */
	static char longpath[4096];
	for (size_t i = 0; i + 2 < sizeof longpath; i += 2)
		memcpy(longpath + i, "/a", 2);
	assert_false(cw_path_glob_match(NULL, "**/a/**/a/**/a/**/a/**/a/**/a/**/b", longpath));
	assert_false(cw_path_glob_match(NULL, "/*a*a*a*a*a*a*a*a*a*a*b", longpath));
	assert_true(cw_path_glob_match(NULL, "**/a/**/a/**/a/**/a/**/a/**/a/**", longpath));
}

/* ---- addresses ------------------------------------------------------------------- */

static void test_addr_roundtrip(void **state)
{
	(void)state;
	static const char *const t[] = {
		"203.0.113.7:80", "127.0.0.1:0", "0.0.0.0:65535", "[2001:db8::1]:443", "[::1]:8080",
		"[::]:53", "[::ffff:127.0.0.1]:80", "[fe80::1%2]:22", "unix:/run/x.sock", "unix:@name",
		"unix:@a\\x00b\\x0a\\x5c", "unix:", "family:0", "family:16",
	};
	char out[256];
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct sockaddr_storage ss;
		size_t len;
		if (cw_addr_parse(t[i], &ss, &len) != 0)
			fail_msg("parse(%s) failed", t[i]);
		if (cw_addr_format((struct sockaddr *)&ss, len, out, sizeof out) != 0)
			fail_msg("format(%s) failed", t[i]);
		if (strcmp(out, t[i]) != 0)
			fail_msg("round trip %s -> %s", t[i], out);
	}
	static const char *const bad[] = {
		"203.0.113.7", "203.0.113.7:65536", "203.0.113.7:-1", "203.0.113.7:8x", "256.0.0.1:80",
		"[2001:db8::1]", "[2001:db8::1]80", "2001:db8::1:80x", "[zz::1]:1", "host.example:80",
		"family:x", "family:300", "",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct sockaddr_storage ss;
		size_t len;
		if (cw_addr_parse(bad[i], &ss, &len) != -EINVAL)
			fail_msg("parse(%s) accepted", bad[i]);
	}
	/* a unix path longer than sun_path */
	char longp[200] = "unix:/";
	memset(longp + 6, 'a', 150);
	struct sockaddr_storage ss;
	size_t len;
	assert_int_equal(cw_addr_parse(longp, &ss, &len), -EINVAL);
	/* 109 bytes: one more than sun_path holds */
	memset(longp, 0, sizeof longp);
	memcpy(longp, "unix:/", 6);
	memset(longp + 6, 'a', 108);
	assert_int_equal(cw_addr_parse(longp, &ss, &len), -EINVAL);
	/* exactly 108 bytes: the kernel takes them without a NUL (issue 14) */
	longp[5 + 108] = '\0';
	assert_int_equal(cw_addr_parse(longp, &ss, &len), 0);
	assert_int_equal(len, sizeof(struct sockaddr_un));
	assert_int_equal(cw_addr_classify((struct sockaddr *)&ss, len), CW_ADDR_UNIX_PATH);
	char back[256];
	assert_int_equal(cw_addr_format((struct sockaddr *)&ss, len, back, sizeof back), 0);
	assert_string_equal(back, longp);
	/* longer than a sockaddr_un (the 128-byte AF_UNIX of issue 14) */
	ss.ss_family = AF_UNIX;
	memset((char *)&ss + 2, 'a', sizeof ss - 2);
	assert_int_equal(cw_addr_classify((struct sockaddr *)&ss, sizeof ss), CW_ADDR_OTHER);
	/* -ENOSPC */
	assert_int_equal(cw_addr_parse("203.0.113.7:80", &ss, &len), 0);
	char tiny[8];
	assert_int_equal(cw_addr_format((struct sockaddr *)&ss, len, tiny, sizeof tiny), -ENOSPC);
}

static void test_addr_classify(void **state)
{
	(void)state;
	static const struct { const char *text; cw_addr_class want; } t[] = {
		{ "127.0.0.1:1", CW_ADDR_LOOPBACK }, { "127.255.255.254:1", CW_ADDR_LOOPBACK },
		{ "126.255.255.255:1", CW_ADDR_EXTERNAL }, { "0.0.0.0:1", CW_ADDR_ANY },
		{ "0.0.0.1:1", CW_ADDR_EXTERNAL }, { "[::1]:1", CW_ADDR_LOOPBACK },
		{ "[::]:1", CW_ADDR_ANY }, { "[::ffff:127.1.2.3]:1", CW_ADDR_LOOPBACK },
		{ "[::ffff:0.0.0.0]:1", CW_ADDR_ANY }, { "[::ffff:10.0.0.1]:1", CW_ADDR_EXTERNAL },
		{ "[fe80::1%3]:1", CW_ADDR_EXTERNAL }, { "unix:/x", CW_ADDR_UNIX_PATH },
		{ "unix:@x", CW_ADDR_UNIX_ABSTRACT }, { "unix:", CW_ADDR_UNIX_UNNAMED },
		{ "family:0", CW_ADDR_UNSPEC }, { "family:2", CW_ADDR_OTHER },
		{ "family:10", CW_ADDR_OTHER }, { "family:17", CW_ADDR_OTHER },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct sockaddr_storage ss;
		size_t len;
		assert_int_equal(cw_addr_parse(t[i].text, &ss, &len), 0);
		if (cw_addr_classify((struct sockaddr *)&ss, len) != t[i].want)
			fail_msg("classify(%s) = %d", t[i].text, cw_addr_classify((struct sockaddr *)&ss, len));
	}
	/* lengths decide: short inet, 24-byte inet6 (no scope id), oversize unix */
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	assert_int_equal(cw_addr_classify((struct sockaddr *)&s6, 24), CW_ADDR_LOOPBACK);
	assert_int_equal(cw_addr_classify((struct sockaddr *)&s6, 23), CW_ADDR_OTHER);
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	assert_int_equal(cw_addr_classify((struct sockaddr *)&s4, sizeof s4 - 1), CW_ADDR_OTHER);
	assert_int_equal(cw_addr_classify((struct sockaddr *)&s4, 1), CW_ADDR_OTHER);
	assert_int_equal(cw_addr_classify(NULL, 16), CW_ADDR_OTHER);
	struct sockaddr_storage big = { .ss_family = AF_UNIX };
	assert_int_equal(cw_addr_classify((struct sockaddr *)&big, sizeof(struct sockaddr_un) + 1), CW_ADDR_OTHER);
}

/* The one unix address extractor and builder, with the lengths a target
 * can give: unnamed, abstract, a 108-byte name without its NUL, a name
 * with bytes after its NUL, one byte longer than a sockaddr_un. */
static void test_addr_unix_path(void **state)
{
	(void)state;
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	struct sockaddr_storage ss;
	struct sockaddr_un *un = (struct sockaddr_un *)&ss;
	char out[CW_UNIX_PATH_MAX + 1];

	memset(&ss, 'x', sizeof ss);
	un->sun_family = AF_UNIX;
	/* 108 bytes, no NUL: the kernel terminates it */
	assert_int_equal(cw_addr_unix_path((struct sockaddr *)&ss, sizeof *un, out), 108);
	assert_int_equal(strlen(out), 108);
	assert_int_equal(out[107], 'x');
	/* one byte more than a sockaddr_un: not an address */
	assert_int_equal(cw_addr_unix_path((struct sockaddr *)&ss, sizeof *un + 1, out), -EINVAL);
	/* a shorter length cuts the name there */
	assert_int_equal(cw_addr_unix_path((struct sockaddr *)&ss, off + 5, out), 5);
	assert_string_equal(out, "xxxxx");
	/* the name stops at its first NUL, whatever follows */
	memcpy(un->sun_path, "/run/a\0/etc", 11);
	assert_int_equal(cw_addr_unix_path((struct sockaddr *)&ss, sizeof *un, out), 6);
	assert_string_equal(out, "/run/a");
	assert_int_equal(cw_addr_unix_path((struct sockaddr *)&ss, sizeof *un, NULL), 6);
	/* unnamed, abstract, another family, too short, none */
	assert_int_equal(cw_addr_unix_path((struct sockaddr *)&ss, off, out), -EINVAL);
	un->sun_path[0] = '\0';
	assert_int_equal(cw_addr_unix_path((struct sockaddr *)&ss, sizeof *un, out), -EINVAL);
	un->sun_path[0] = '/';
	un->sun_family = AF_INET;
	assert_int_equal(cw_addr_unix_path((struct sockaddr *)&ss, sizeof *un, out), -EINVAL);
	un->sun_family = AF_UNIX;
	assert_int_equal(cw_addr_unix_path((struct sockaddr *)&ss, 1, out), -EINVAL);
	assert_int_equal(cw_addr_unix_path(NULL, sizeof *un, out), -EINVAL);

	/* the builder: the NUL when it fits, none at exactly 108 bytes */
	char name[CW_UNIX_PATH_MAX + 2];
	memset(name, 'n', sizeof name);
	memset(&ss, 0x55, sizeof ss);
	assert_int_equal(cw_addr_unix_set(&ss, name, 109), -EINVAL);
	assert_int_equal(cw_addr_unix_set(&ss, name, 108), (int)(off + 108));
	assert_int_equal(cw_addr_unix_path((struct sockaddr *)&ss, off + 108, out), 108);
	assert_int_equal(cw_addr_unix_set(&ss, "/w/s.sock", 9), (int)(off + 10));
	assert_int_equal(ss.ss_family, AF_UNIX);
	assert_int_equal(un->sun_path[9], '\0');
	assert_int_equal(un->sun_path[107], '\0'); /* the rest cleared */
	assert_int_equal(cw_addr_unix_path((struct sockaddr *)&ss, off + 10, out), 9);
	assert_string_equal(out, "/w/s.sock");
}

static void test_scope_match(void **state)
{
	(void)state;
	static const struct { const char *scope, *addr; bool want; } t[] = {
		{ "203.0.113.7:80", "203.0.113.7:80", true },
		{ "203.0.113.7:80", "203.0.113.7:81", false },
		{ "203.0.113.7", "203.0.113.7:81", true },
		{ "203.0.113.7:*", "203.0.113.7:1", true },
		{ "203.0.113.0/24", "203.0.113.255:1", true },
		{ "203.0.113.0/24", "203.0.114.0:1", false },
		{ "203.0.113.0/24:443", "203.0.113.9:443", true },
		{ "203.0.113.0/24:443", "203.0.113.9:444", false },
		{ "10.0.0.0/8", "10.255.1.2:1", true },
		{ "10.0.0.0/7", "11.0.0.1:1", true },
		{ "10.0.0.0/7", "12.0.0.1:1", false },
		{ "0.0.0.0/0", "198.51.100.1:1", true },
		{ "0.0.0.0/0", "[2001:db8::1]:1", false },
		{ "*:443", "203.0.113.7:443", true },
		{ "*:443", "[2001:db8::1]:443", true },
		{ "*:443", "203.0.113.7:80", false },
		{ "*", "203.0.113.7:80", true },
		{ "*", "unix:/x", false },
		{ "[::1]:*", "[::1]:5", true },
		{ "[::1]:80", "[::1]:81", false },
		{ "[::1]", "127.0.0.1:80", false },
		{ "::1", "[::1]:5", true },
		{ "[2001:db8::/32]:443", "[2001:db8:1::1]:443", true },
		{ "[2001:db8::]/32:443", "[2001:db8:1::1]:443", true },
		{ "2001:db8::/32", "[2001:db9::1]:443", false },
		{ "203.0.113.7:80", "[::ffff:203.0.113.7]:80", true },   /* mapped matches IPv4 */
		{ "203.0.113.0/24", "[::ffff:203.0.113.200]:1", true },
		{ "[::ffff:203.0.113.7]:80", "203.0.113.7:80", true },   /* and the other way */
		{ "[::ffff:0:0/96]", "198.51.100.1:1", true },
		{ "127.0.0.0/8", "[::1]:80", false },
		{ "unix:/var/run/docker.sock", "unix:/var/run/docker.sock", true },
		{ "unix:/var/run/*.sock", "unix:/var/run/docker.sock", true },
		{ "unix:/var/run/*.sock", "unix:/var/run/x/docker.sock", false },
		{ "unix:/var/**", "unix:/var/run/x/docker.sock", true },
		{ "unix:@dbus*", "unix:@dbus-1234", true },
		{ "unix:@dbus*", "unix:/dbus-1234", false },
		{ "unix:/x", "203.0.113.7:80", false },
		{ "pkgs.example.com:443", "203.0.113.7:443", false },   /* names are not matched here */
		{ "203.0.113.7:99999", "203.0.113.7:80", false },
		{ "203.0.113.0/33", "203.0.113.7:80", false },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct sockaddr_storage ss;
		size_t len;
		assert_int_equal(cw_addr_parse(t[i].addr, &ss, &len), 0);
		if (cw_addr_scope_match(t[i].scope, (struct sockaddr *)&ss, len) != t[i].want)
			fail_msg("scope_match(%s, %s) != %d", t[i].scope, t[i].addr, t[i].want);
	}
	/* validation of scope text */
	assert_int_equal(cw_addr_scope_check("203.0.113.0/24:443"), CW_SCOPE_ADDR);
	assert_int_equal(cw_addr_scope_check("[::1]:*"), CW_SCOPE_ADDR);
	assert_int_equal(cw_addr_scope_check("unix:/run/*"), CW_SCOPE_ADDR);
	assert_int_equal(cw_addr_scope_check("pkgs.example.com:443"), CW_SCOPE_HOST);
	assert_int_equal(cw_addr_scope_check("*.example.com"), CW_SCOPE_HOST);
	assert_int_equal(cw_addr_scope_check("10.0.0.300:1"), -EINVAL);
	assert_int_equal(cw_addr_scope_check("exa mple.com"), -EINVAL);
	assert_int_equal(cw_addr_scope_check("x:y"), -EINVAL);
	assert_int_equal(cw_addr_scope_check(""), -EINVAL);
	assert_int_equal(cw_addr_scope_check("[::1"), -EINVAL);
	assert_true(cw_addr_host_scope_match("pkgs.example.com:443", "PKGS.example.com.", 443));
	assert_false(cw_addr_host_scope_match("pkgs.example.com:443", "pkgs.example.com", 80));
	assert_true(cw_addr_host_scope_match("*.example.com", "a.b.example.com", 1));
	assert_false(cw_addr_host_scope_match("*.example.com", "example.com", 1));
	assert_false(cw_addr_host_scope_match("*.example.com", "badexample.com", 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_rows_cover_matrix),
		cmocka_unit_test(test_reason_text),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_is_under),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_addr_roundtrip),
		cmocka_unit_test(test_addr_classify),
		cmocka_unit_test(test_addr_unix_path),
		cmocka_unit_test(test_scope_match),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
