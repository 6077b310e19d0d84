/* Unit tests of the network family (handlers/net*.c) with this test
 * process as the target: a fake notification whose arguments point into
 * our own memory (read back with process_vm_readv, as from any target),
 * our own sockets duplicated with pidfd_getfd, the decision taken by the
 * real policy with the built-in "verify" profile. The event flow of
 * notify.c (decide, deny, record) and the answers are stubbed
 * (handler_stubs.h): they are recorded, so a test sees what net.c decided
 * and answered, and the real effect on its own socket (bound where,
 * connected or not).
 *
 * No packet leaves the machine: the only connection made is to a loopback
 * listener of the test; external addresses are only decided (and denied). */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <net/if.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#define HANDLER_STUBS_NO_TRACKER /* net.c asks nothing of one */
#include "handler_stubs.h"
#include "supervisor/handlers/net_impl.h"
#include "supervisor/privs.h"

/* ---- the rest of the supervisor around the handler, stubbed ---- */

/* The address of the last recorded event, copied. */
static struct {
	struct sockaddr_storage addr;
	socklen_t addrlen;
} seen_addr;

static void seen_addr_reset(void)
{
	memset(&seen_addr, 0, sizeof(seen_addr));
}

static void seen_addr_record(const struct cw_event *ev)
{
	seen_addr.addrlen = 0;
	if (ev->op.addr && ev->op.addrlen <= sizeof(seen_addr.addr)) {
		memcpy(&seen_addr.addr, ev->op.addr, ev->op.addrlen);
		seen_addr.addrlen = (socklen_t)ev->op.addrlen;
	}
}

void cw_escape_finish(struct cw_notif *n, const char *scope, long long flags, int deny_err)
{
	(void)scope;
	(void)flags;
	cw_answer_error(n, deny_err ? deny_err : EPERM);
}

/* ---- the fake run ---- */

static int setup(void **state)
{
	(void)state;
	if (fake_run("verify") < 0)
		return -1;
	seen_more_reset = seen_addr_reset;
	seen_more_record = seen_addr_record;
	if (cw_net_state_new(&run.net_state) < 0 || cw_resolve_links_new(&run.links) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cw_net_state_free(run.net_state);
	cw_resolve_links_free(run.links);
	fake_run_free();
	return fake_run_remove_dir();
}

static struct sockaddr_in in4(const char *ip, int port)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	assert_int_equal(inet_pton(AF_INET, ip, &s.sin_addr), 1);
	return s;
}

/* ---- addresses ---- */

static void test_check_addr_lengths(void **state)
{
	(void)state;
	struct sockaddr_storage a;
	memset(&a, 0, sizeof(a));
	a.ss_family = AF_INET;
	assert_int_equal(cw_net_check_addr(&a, 0), -EINVAL);
	assert_int_equal(cw_net_check_addr(&a, 1), -EINVAL);
	assert_int_equal(cw_net_check_addr(&a, 2), 0); /* the family's own checks are the kernel's */
	assert_int_equal(cw_net_check_addr(&a, sizeof(a)), 0);
	assert_int_equal(cw_net_check_addr(&a, sizeof(a) + 1), -EINVAL);
	assert_int_equal(cw_net_check_addr(&a, UINT64_MAX), -EINVAL);
	assert_int_equal(cw_net_check_addr(&a, 0x100000080ULL), -EINVAL); /* no 32-bit wrap */
	a.ss_family = AF_UNIX;
	assert_int_equal(cw_net_check_addr(&a, sizeof(struct sockaddr_un)), 0);
	assert_int_equal(cw_net_check_addr(&a, sizeof(struct sockaddr_un) + 1), -EINVAL);
}

/* The copy is taken from the target's memory with the length it gave,
 * refused before reading when that length is hostile, and never read past
 * its end: an address right before an unmapped page reads, one byte more
 * fails. */
static void test_read_addr_from_target(void **state)
{
	(void)state;
	struct cw_net_call c;
	struct cw_notif *n = notify(__NR_connect, "connect", 0, 0, 0, 0, 0, 0);
	struct sockaddr_in s = in4("203.0.113.7", 443);

	memset(&c, 0, sizeof(c));
	assert_int_equal(cw_net_read_addr(n, &c, ptr(&s), sizeof(s), true), 0);
	assert_int_equal(c.addrlen, sizeof(s));
	assert_memory_equal(&c.addr, &s, sizeof(s));
	assert_int_equal(cw_net_read_addr(n, &c, ptr(&s), 1, true), -EINVAL);
	assert_int_equal(cw_net_read_addr(n, &c, ptr(&s), 0, true), -EINVAL);
	assert_int_equal(cw_net_read_addr(n, &c, ptr(&s), sizeof(struct sockaddr_storage) + 1, true), -EINVAL);
	assert_int_equal(cw_net_read_addr(n, &c, 0, sizeof(s), true), -EFAULT);

	long pg = sysconf(_SC_PAGESIZE);
	char *two = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(two != MAP_FAILED);
	assert_int_equal(munmap(two + pg, (size_t)pg), 0); /* a guard page after the first */
	char *end = two + pg - sizeof(s);
	memcpy(end, &s, sizeof(s));
	assert_int_equal(cw_net_read_addr(n, &c, ptr(end), sizeof(s), true), 0);
	assert_memory_equal(&c.addr, &s, sizeof(s));
	assert_int_equal(cw_net_read_addr(n, &c, ptr(end), sizeof(s) + 1, true), -EFAULT);

	/* A unix address longer than a sockaddr_un: copied, then refused. */
	struct sockaddr_storage big;
	memset(&big, 'a', sizeof(big));
	big.ss_family = AF_UNIX;
	assert_int_equal(cw_net_read_addr(n, &c, ptr(&big), sizeof(struct sockaddr_un) + 1, true), -EINVAL);
	munmap(two, (size_t)pg);
}

/* A unix path is resolved in the target's context (its cwd; symlinks),
 * and the copy rewritten to the absolute path decided on. */
static void test_read_addr_resolves_unix(void **state)
{
	(void)state;
	struct cw_net_call c;
	struct cw_notif *n = notify(__NR_connect, "connect", 0, 0, 0, 0, 0, 0);
	char want[PATH_MAX + 16], got[CW_UNIX_PATH_MAX + 1];
	struct sockaddr_un un = { .sun_family = AF_UNIX };

	assert_int_equal(mkdir("real", 0755), 0);
	assert_int_equal(symlink("real", "link"), 0);
	strcpy(un.sun_path, "link/s.sock");
	memset(&c, 0, sizeof(c));
	assert_int_equal(cw_net_read_addr(n, &c, ptr(&un), offsetof(struct sockaddr_un, sun_path) + 12, true), 0);
	assert_true(cw_addr_unix_path((struct sockaddr *)&c.addr, c.addrlen, got) > 0);
	snprintf(want, sizeof(want), "%s/real/s.sock", dir);
	assert_string_equal(got, want);
	/* bind creates the name: its last component is not followed */
	strcpy(un.sun_path, "link");
	assert_int_equal(cw_net_read_addr(n, &c, ptr(&un), offsetof(struct sockaddr_un, sun_path) + 5, false), 0);
	assert_true(cw_addr_unix_path((struct sockaddr *)&c.addr, c.addrlen, got) > 0);
	snprintf(want, sizeof(want), "%s/link", dir);
	assert_string_equal(got, want);
	/* abstract and unnamed: no file, left as they are */
	memset(un.sun_path, 0, sizeof(un.sun_path));
	memcpy(un.sun_path, "\0abs", 4);
	assert_int_equal(cw_net_read_addr(n, &c, ptr(&un), offsetof(struct sockaddr_un, sun_path) + 4, true), 0);
	assert_int_equal(c.addrlen, offsetof(struct sockaddr_un, sun_path) + 4);
	assert_memory_equal(((struct sockaddr_un *)&c.addr)->sun_path, "\0abs", 4);
	/* a relative name that resolves to more than 108 bytes: refused,
	 * it could not be named in an address */
	char deep[200];
	snprintf(deep, sizeof(deep), "%0100d", 0);
	assert_int_equal(mkdir(deep, 0755), 0);
	memset(un.sun_path, 0, sizeof(un.sun_path));
	memcpy(un.sun_path, deep, 100);
	memcpy(un.sun_path + 100, "/s", 2);
	assert_int_equal(cw_net_read_addr(n, &c, ptr(&un), sizeof(un), true), -EACCES);
}

/* Unix socket files: one that is missing is answered ENOENT before any
 * decision; one from outside the run (not made by the tree through
 * capwatch) is decided as a server outside (op.alias, E48). */
static void test_unix_missing_and_outside(void **state)
{
	(void)state;
	struct cw_net_call c;
	memset(&c, 0, sizeof(c));
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/none.sock", dir);
	c.addrlen = (socklen_t)cw_addr_unix_set(&c.addr, path, strlen(path));
	assert_int_equal(cw_net_missing_unix_path(&c), ENOENT);
	assert_null(cw_net_unix_alias(run.net_state, &c.addr, c.addrlen));

	/* A server the test made itself, i.e. not through capwatch. */
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s >= 0);
	snprintf(path, sizeof(path), "%s/srv.sock", dir);
	struct sockaddr_storage a;
	socklen_t al = (socklen_t)cw_addr_unix_set(&a, path, strlen(path));
	assert_int_equal(bind(s, (struct sockaddr *)&a, al), 0);
	c.addr = a;
	c.addrlen = al;
	assert_int_equal(cw_net_missing_unix_path(&c), 0);
	assert_string_equal(cw_net_unix_alias(run.net_state, &a, al), "socket file from outside the run");
	/* A regular file under a socket's name is no server at all. */
	snprintf(path, sizeof(path), "%s/plain", dir);
	int f = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(f >= 0);
	close(f);
	al = (socklen_t)cw_addr_unix_set(&a, path, strlen(path));
	assert_null(cw_net_unix_alias(run.net_state, &a, al));
	close(s);
}

static void test_dest_local(void **state)
{
	(void)state;
	static const struct { const char *text; bool local, v4; } t[] = {
		{ "127.0.0.1:53", true, true }, { "127.9.9.9:1", true, true }, { "0.0.0.0:1", true, true },
		{ "203.0.113.7:53", false, true }, { "[::1]:53", true, false }, { "[::]:1", true, false },
		{ "[::ffff:127.0.0.1]:53", true, true }, { "[::ffff:0.0.0.0]:1", true, true },
		{ "[::ffff:203.0.113.7]:53", false, true }, { "[2001:db8::1]:53", false, false },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sockaddr_storage ss;
		size_t len;
		bool v4 = !t[i].v4;
		assert_int_equal(cw_addr_parse(t[i].text, &ss, &len), 0);
		if (cw_net_dest_local(&ss, (socklen_t)len, &v4) != t[i].local || (t[i].local && v4 != t[i].v4))
			fail_msg("%s: local %d v4 %d", t[i].text, !t[i].local, v4);
	}
	/* too short for its family: not local */
	struct sockaddr_in lo = in4("127.0.0.1", 1);
	bool v4;
	assert_false(cw_net_dest_local((struct sockaddr_storage *)&lo, sizeof(lo) - 1, &v4));
}

/* ---- the handler: decide, answer, perform ---- */

/* The tests below act on loopback sockets through pidfd_getfd (Linux
 * 5.6): skipped, saying why, where either is missing. */
static void need_loopback_and_getfd(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in lo = { .sin_family = AF_INET, .sin_port = htons(9),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	/* a datagram connect looks the route up and sends nothing */
	int ok = s >= 0 && connect(s, (struct sockaddr *)&lo, sizeof(lo)) == 0;
	if (s >= 0)
		close(s);
	if (!ok) {
		print_message("skip: no route to loopback here (%s)\n", strerror(errno));
		skip();
	}
	need_getfd();
}

static struct sockaddr_in bound_addr(int s)
{
	struct sockaddr_in a;
	socklen_t l = sizeof(a);
	memset(&a, 0, sizeof(a));
	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &l), 0);
	return a;
}

/* The device a socket is bound to ("" for none). */
static void bound_device(int s, char dev[IFNAMSIZ + 1])
{
	socklen_t l = IFNAMSIZ;
	memset(dev, 0, IFNAMSIZ + 1);
	assert_int_equal(getsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, dev, &l), 0);
}

/* A server bound to the wildcard would be visible to the host's network
 * (host_visible_binding, which verify denies); verify allows loopback,
 * so capwatch binds the target's socket on the wildcard it asked for but
 * restricted to the loopback device first (SO_BINDTODEVICE lo), and says
 * so: getsockname() says 0.0.0.0 as bare, and a dual-stack "::" socket
 * keeps both families (issue 17 item 10). The effect is on the test's
 * own socket. */
static void test_bind_wildcard_lands_on_loopback(void **state)
{
	(void)state;
	need_loopback_and_getfd();
	int s = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(s >= 0);
	struct sockaddr_in any = in4("0.0.0.0", 0);
	dispatch(cw_handle_net, notify(__NR_bind, "bind", (uint64_t)s, ptr(&any), sizeof(any), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_int_equal(seen.val, 0);
	assert_int_equal(seen.nrecorded, 1);
	assert_int_equal(seen.ev.op.kind, CW_OP_BIND);
	assert_int_equal(seen.ev.d.verdict, CW_ALLOW);
	assert_int_equal(seen.ev.d.cap, CW_CAP_ISOLATED_LOOPBACK);
	assert_true(seen.ev.verified); /* performed by capwatch, not continued */
	assert_int_equal(seen.notes, 1);
	assert_non_null(strstr(seen.note, "0.0.0.0"));
	assert_non_null(strstr(seen.note, "SO_BINDTODEVICE lo"));
	struct sockaddr_in b = bound_addr(s);
	assert_int_equal(ntohl(b.sin_addr.s_addr), INADDR_ANY);
	assert_true(b.sin_port != 0);
	char dev[IFNAMSIZ + 1];
	bound_device(s, dev);
	assert_string_equal(dev, "lo");
	/* listen() on it exposes loopback only: decided as 127.0.0.1. */
	dispatch(cw_handle_net, notify(__NR_listen, "listen", (uint64_t)s, 1, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_int_equal(seen.ev.d.verdict, CW_ALLOW);
	assert_int_equal(seen.ev.d.cap, CW_CAP_ISOLATED_LOOPBACK);
	close(s);

	/* "::" dual-stack: bound on :: (lo only), IPV6_V6ONLY untouched. */
	s = socket(AF_INET6, SOCK_STREAM, 0);
	if (s >= 0) {
		int off = 0;
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = in6addr_any };
		dispatch(cw_handle_net, notify(__NR_bind, "bind", (uint64_t)s, ptr(&a6), sizeof(a6), 0, 0, 0));
		if (seen.kind == ANS_VALUE) { /* no IPv6 here: EADDRNOTAVAIL */
			struct sockaddr_in6 g;
			socklen_t gl = sizeof(g);
			assert_int_equal(getsockname(s, (struct sockaddr *)&g, &gl), 0);
			assert_true(IN6_IS_ADDR_UNSPECIFIED(&g.sin6_addr));
			bound_device(s, dev);
			assert_string_equal(dev, "lo");
		}
		close(s);
	}

	/* A bind to loopback is allowed as it is. */
	s = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in lo = in4("127.0.0.1", 0);
	dispatch(cw_handle_net, notify(__NR_bind, "bind", (uint64_t)s, ptr(&lo), sizeof(lo), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_int_equal(seen.notes, 0);
	assert_int_equal(ntohl(bound_addr(s).sin_addr.s_addr), INADDR_LOOPBACK);
	close(s);
}

/* A bind to an address that is not loopback is host_visible_binding:
 * refused under verify, and the socket stays unbound. */
static void test_bind_external_denied(void **state)
{
	(void)state;
	need_loopback_and_getfd();
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in ext = in4("203.0.113.7", 8080);
	dispatch(cw_handle_net, notify(__NR_bind, "bind", (uint64_t)s, ptr(&ext), sizeof(ext), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.ev.d.verdict, CW_DENY);
	assert_int_equal(seen.ev.d.cap, CW_CAP_HOST_VISIBLE_BINDING);
	struct sockaddr_in b = bound_addr(s);
	assert_int_equal(b.sin_port, 0);
	assert_int_equal(b.sin_addr.s_addr, 0);
	close(s);
}

/* connect: loopback is performed (by a worker, on a duplicate of the
 * test's socket: the test's socket ends up connected to its listener);
 * an external address is external_network, "ask" under verify, which
 * without an approver is a denial: nothing is connected. */
static void test_connect_loopback_vs_external(void **state)
{
	(void)state;
	need_loopback_and_getfd();
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in lo = in4("127.0.0.1", 0);
	assert_int_equal(bind(l, (struct sockaddr *)&lo, sizeof(lo)), 0);
	assert_int_equal(listen(l, 4), 0);
	struct sockaddr_in dst = bound_addr(l);

	int s = socket(AF_INET, SOCK_STREAM, 0);
	dispatch(cw_handle_net, notify(__NR_connect, "connect", (uint64_t)s, ptr(&dst), sizeof(dst), 0, 0, 0));
	assert_int_equal(seen.ev.op.kind, CW_OP_CONNECT);
	assert_int_equal(seen.ev.d.verdict, CW_ALLOW);
	assert_int_equal(seen.ev.d.cap, CW_CAP_ISOLATED_LOOPBACK);
	assert_int_equal(seen.kind, ANS_NONE); /* the worker answers (to the listener) */
	assert_int_equal(notif.answer.kind, CW_ANSWER_LATER); /* handed to the worker */
	struct sockaddr_in peer;
	socklen_t pl = sizeof(peer);
	int tries = 0;
	while (getpeername(s, (struct sockaddr *)&peer, &pl) < 0 && tries++ < 200) {
		struct timespec ms = { 0, 10 * 1000 * 1000 };
		nanosleep(&ms, NULL);
		pl = sizeof(peer);
	}
	assert_true(tries <= 200);
	assert_int_equal(peer.sin_port, dst.sin_port);
	close(s);

	s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in ext = in4("203.0.113.7", 80);
	dispatch(cw_handle_net, notify(__NR_connect, "connect", (uint64_t)s, ptr(&ext), sizeof(ext), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.ev.d.cap, CW_CAP_EXTERNAL_NETWORK);
	assert_int_equal(seen.ev.d.profile_verdict, CW_ASK);
	assert_int_equal(seen.ev.d.verdict, CW_DENY);
	assert_int_equal(seen.ev.d.next_action, CW_NEXT_REQUEST_APPROVAL);
	pl = sizeof(peer);
	assert_int_equal(getpeername(s, (struct sockaddr *)&peer, &pl), -1);
	assert_int_equal(errno, ENOTCONN);
	close(s);
	close(l);
}

/* A unix bind in a private view (net_unix_bind.c): the socket file lands
 * in the held directory whatever the name says about the way there
 * (the view is built from the name alone, so a relative name needs no
 * cwd of the test's), and the kernel records the name as given. A name
 * whose walk would look a name up inside the held directory is refused
 * (built false), nothing bound. Skipped where no view can be built. */
static int bind_view(const char *dir, const char *name, bool *built, char got[110])
{
	struct sockaddr_storage a;
	memset(&a, 0, sizeof(a));
	struct sockaddr_un *u = (struct sockaddr_un *)&a;
	u->sun_family = AF_UNIX;
	size_t l = strlen(name);
	memcpy(u->sun_path, name, l);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	int d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(s >= 0 && d >= 0);
	int r = cw_net_bind_in_view(s, d, &a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l), 022, built);
	struct sockaddr_un g;
	socklen_t gl = sizeof(g);
	memset(&g, 0, sizeof(g));
	memset(got, 0, 110);
	if (r == 0 && getsockname(s, (struct sockaddr *)&g, &gl) == 0)
		memcpy(got, g.sun_path, gl - offsetof(struct sockaddr_un, sun_path));
	close(s);
	close(d);
	return r;
}

static void test_unix_bind_in_view(void **state)
{
	(void)state;
	char t[] = "/tmp/cwnet.XXXXXX";
	assert_non_null(mkdtemp(t));
	char held[64], abs_name[96], path[128], got[110];
	snprintf(held, sizeof(held), "%s/held", t);
	assert_int_equal(mkdir(held, 0755), 0);
	bool built = false;
	snprintf(abs_name, sizeof(abs_name), "%s/elsewhere/../other/a.sock", t);
	int r = bind_view(held, abs_name, &built, got);
	if (!built) {
		print_message("skip: no private view here (%s)\n", strerror(-r));
		rmdir(held);
		rmdir(t);
		skip();
	}
	assert_int_equal(r, 0);
	assert_string_equal(got, abs_name);
	struct stat st;
	snprintf(path, sizeof(path), "%s/a.sock", held);
	assert_int_equal(lstat(path, &st), 0); /* in the held directory */
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0755); /* umask 022 */
	unlink(path);
	snprintf(path, sizeof(path), "%s/other", t);
	assert_int_equal(lstat(path, &st), -1); /* not where the name says */
	const char *rel[] = { "../../x/./b.sock", "q//c.sock", "../d.sock", "./f.sock", "../c/g.sock" };
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		assert_int_equal(bind_view(held, rel[i], &built, got), 0);
		assert_true(built);
		assert_string_equal(got, rel[i]);
		snprintf(path, sizeof(path), "%s/%s", held, strrchr(rel[i], '/') + 1);
		assert_int_equal(lstat(path, &st), 0);
		unlink(path);
	}
	/* "x/../e.sock": the walk stands on the held directory for "x" */
	assert_int_equal(bind_view(held, "x/../e.sock", &built, got), -ELOOP);
	assert_false(built);
	snprintf(path, sizeof(path), "%s/e.sock", held);
	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(rmdir(held), 0); /* nothing else was left in it */
	assert_int_equal(rmdir(t), 0);
}

/* Hostile lengths at the handler: answered with the kernel's errno,
 * nothing decided or recorded; a missing unix path is ENOENT. */
static void test_handler_hostile_lengths(void **state)
{
	(void)state;
	need_loopback_and_getfd();
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in dst = in4("127.0.0.1", 9);
	char data[4] = "ping";
	/* sendto with a length past a sockaddr_storage */
	dispatch(cw_handle_net, notify(__NR_sendto, "sendto", (uint64_t)s, ptr(data), 4, 0, ptr(&dst), 4096));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EINVAL);
	assert_int_equal(seen.nrecorded, 0);
	/* ... and with its upper 32 bits set: the kernel takes an int */
	dispatch(cw_handle_net, notify(__NR_connect, "connect", (uint64_t)s, ptr(&dst), 0xffffffff00000000ULL | sizeof(dst),
			     0, 0, 0));
	assert_int_equal(seen.ev.op.kind, CW_OP_CONNECT); /* decided on the low 32 bits */
	assert_int_equal(seen.nrecorded, 1);
	/* no address at all: nothing to decide, the kernel's business */
	dispatch(cw_handle_net, notify(__NR_sendto, "sendto", (uint64_t)s, ptr(data), 4, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_CONTINUE);
	close(s);

	s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	char missing[PATH_MAX + 32];
	int ml = snprintf(missing, sizeof(missing), "%s/nobody-here.sock", dir);
	assert_true(ml > 0 && (size_t)ml < sizeof(un.sun_path));
	memcpy(un.sun_path, missing, (size_t)ml);
	dispatch(cw_handle_net, notify(__NR_connect, "connect", (uint64_t)s, ptr(&un), sizeof(un), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, ENOENT);
	assert_int_equal(seen.nrecorded, 0);
	/* 111 bytes of unix address */
	dispatch(cw_handle_net, notify(__NR_connect, "connect", (uint64_t)s, ptr(&un), sizeof(un) + 1, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EINVAL);
	close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_addr_lengths),
		cmocka_unit_test(test_read_addr_from_target),
		cmocka_unit_test(test_read_addr_resolves_unix),
		cmocka_unit_test(test_unix_missing_and_outside),
		cmocka_unit_test(test_dest_local),
		cmocka_unit_test(test_bind_wildcard_lands_on_loopback),
		cmocka_unit_test(test_unix_bind_in_view),
		cmocka_unit_test(test_bind_external_denied),
		cmocka_unit_test(test_connect_loopback_vs_external),
		cmocka_unit_test(test_handler_hostile_lengths),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
