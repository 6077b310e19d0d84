/* Unit tests of the receiving side of the preload channel
 * (supervisor/annot*.c), without a supervised run: the files are included
 * so that their static validator, store and lookups can be driven
 * directly, and the few supervisor functions they call are stubbed here.
 *
 * What is checked: every malformed shape is rejected and counted; the
 * sender is the kernel's pid, never the claimed one; a claimed tid outside
 * the sender's thread group is rejected; the rate limit drops the excess;
 * a network annotation gives its host to the matching connect only; a path
 * cut at a page end matches as a prefix; symbols are named from the ELF
 * file the kernel mapped; a decision is never touched. */
#include "config.h"
#include <arpa/inet.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "supervisor/annot.c"
#include "supervisor/annot_channel.c"
#include "supervisor/annot_symbols.c"
#include "supervisor/annot_match.c"

/* ---- stubs of the supervisor ---- */

static double now_s;
static int notes;
static char last_note[512];
static struct cw_proc procs[4];

double cw_record_time(const struct cw_run *run)
{
	(void)run;
	return now_s;
}

void cw_record_note(struct cw_run *run, int pid, const char *level, const char *fmt, ...)
{
	va_list ap;
	(void)run;
	(void)pid;
	(void)level;
	va_start(ap, fmt);
	vsnprintf(last_note, sizeof(last_note), fmt, ap);
	va_end(ap);
	notes++;
}

struct cw_proc *cw_tracker_find(const struct cw_run *run, pid_t pid)
{
	(void)run;
	for (size_t i = 0; i < CW_ARRAY_SIZE(procs); i++)
		if (procs[i].pid == pid)
			return &procs[i];
	return NULL;
}

/* The kernel back end's PID namespace: not in this test (kernel_reads is
 * false, so never called). */
pid_t cw_kernel_host_tid(pid_t tgid, pid_t nstid)
{
	(void)tgid;
	return nstid;
}

/* The kernel back end's connector drain: no kernel back end here. */
void cw_kernel_sync(struct cw_run *run)
{
	(void)run;
}

void cw_report_set_annotations(cw_report *r, const struct cw_report_annotations *a)
{
	(void)r;
	(void)a;
}

void cw_log(cw_log_level level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

/* ---- helpers ---- */

static struct cw_run run;
static unsigned char buf[CW_ANNOT_MAX_MSG * 2];

/* Two processes: 100 (threads 100, 101) and 200. */
static int setup(void **state)
{
	(void)state;
	memset(procs, 0, sizeof(procs));
	/* 100 and 200 run an image whose exec was read (a hello is theirs). */
	procs[0] = (struct cw_proc){ .pid = 100, .tgid = 100, .execed = true };
	procs[1] = (struct cw_proc){ .pid = 101, .tgid = 100, .is_thread = true };
	procs[2] = (struct cw_proc){ .pid = 200, .tgid = 200, .execed = true };
	/* A fresh state: zero counters, empty rings and caches. */
	run.annot = cw_annot_new();
	if (!run.annot)
		return -1;
	notes = 0;
	now_s = 1.0;
	run.annot->enabled = true;
	snprintf(run.annot->lib_path, sizeof(run.annot->lib_path), "/nonexistent/%s", LIB_NAME);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cw_annot_free(&run);
	return 0;
}

/* A message of TYPE from TID with optional raw sockaddr, name, text. */
static size_t build(uint16_t type, int32_t tid, const void *raw, size_t rawlen, const char *name,
		    const char *text, const struct cw_annot_addr *addrs, uint16_t naddrs)
{
	struct cw_annot_hdr h = { .magic = CW_ANNOT_MAGIC, .type = type, .tid = tid,
				  .naddrs = naddrs, .rawlen = (uint16_t)rawlen,
				  .namelen = name ? (uint16_t)strlen(name) : 0,
				  .textlen = text ? (uint16_t)strlen(text) : 0 };
	size_t off = sizeof(h);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + off, addrs, naddrs * sizeof(*addrs));
	off += naddrs * sizeof(*addrs);
	memcpy(buf + off, raw, rawlen);
	off += rawlen;
	memcpy(buf + off, name, h.namelen);
	off += h.namelen;
	memcpy(buf + off, text, h.textlen);
	return off + h.textlen;
}

static void deliver(size_t len, pid_t from, bool trunc)
{
	struct ucred c = { .pid = from, .uid = 0, .gid = 0 };
	receive_one(&run, buf, len, trunc, &c);
}

static struct sockaddr_in sin_of(const char *ip, int port)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

/* ---- tests ---- */

static void test_malformed_rejected(void **state)
{
	(void)state;
	struct sockaddr_in s = sin_of("203.0.113.7", 443);
	struct cw_annot_addr a = { .family = AF_INET };
	size_t n;

	n = build(CW_ANNOT_HELLO, 100, NULL, 0, NULL, NULL, NULL, 0);
	buf[0] ^= 1;                                   /* magic */
	deliver(n, 100, false);
	n = build(CW_ANNOT_FILE, 100, NULL, 0, NULL, "/etc/passwd", NULL, 0);
	deliver(n - 3, 100, false);                    /* shorter than its header says */
	deliver(n, 100, true);                         /* MSG_TRUNC */
	n = build(9, 100, NULL, 0, NULL, NULL, NULL, 0);
	deliver(n, 100, false);                        /* type */
	n = build(CW_ANNOT_RESOLVED, 100, NULL, 0, "bad\nname", NULL, &a, 1);
	deliver(n, 100, false);                        /* host characters */
	n = build(CW_ANNOT_RESOLVED, 100, NULL, 0, "x.test", NULL, NULL, 0);
	deliver(n, 100, false);                        /* resolution without address */
	n = build(CW_ANNOT_NET, 100, NULL, 0, NULL, NULL, NULL, 0);
	deliver(n, 100, false);                        /* network without address */
	n = build(CW_ANNOT_NET, 200, &s, sizeof(s), NULL, NULL, NULL, 0);
	deliver(n, 100, false);                        /* tid of another process */
	n = build(CW_ANNOT_HELLO, 100, NULL, 0, NULL, NULL, NULL, 0);
	((struct cw_annot_hdr *)buf)->nframes = CW_ANNOT_MAX_FRAMES + 1;
	deliver(n, 100, false);                        /* over a limit */
	assert_int_equal(run.annot->stats.malformed, 9);
	assert_int_equal(run.annot->stats.accepted, 0);
	assert_int_equal(run.annot->ring_next, 0);
	assert_int_equal(run.annot->names_next, 0);
	/* One note for the sender, not one per message. */
	assert_int_equal(notes, 1);
	assert_non_null(strstr(last_note, "malformed"));

	/* A thread of the sender is fine. */
	n = build(CW_ANNOT_NET, 101, &s, sizeof(s), NULL, NULL, NULL, 0);
	deliver(n, 100, false);
	assert_int_equal(run.annot->stats.accepted, 1);
	assert_int_equal(run.annot->ring[0].tid, 101);
}

static void test_attribution_is_the_kernels(void **state)
{
	(void)state;
	size_t n = build(CW_ANNOT_HELLO, 100, NULL, 0, NULL, NULL, NULL, 0);
	deliver(n, 999, false); /* no such member */
	receive_one(&run, buf, n, false, NULL); /* no credentials */
	assert_int_equal(run.annot->stats.unattributed, 2);
	assert_int_equal(run.annot->stats.accepted, 0);
	procs[2].preload = "absent"; /* a static binary cannot be made "present" */
	n = build(CW_ANNOT_HELLO, 200, NULL, 0, NULL, NULL, NULL, 0);
	deliver(n, 200, false);
	assert_string_equal(procs[2].preload, "absent");
	deliver(build(CW_ANNOT_HELLO, 100, NULL, 0, NULL, NULL, NULL, 0), 100, false);
	assert_string_equal(procs[0].preload, "present");
	/* A second hello is not this image's: the next one's, read before
	 * its exec (kept for cw_annot_exec), and so is one from a process
	 * whose exec was never read (a fork says no hello). */
	struct bucket *b = cw_hmap_find(&run.annot->buckets, &(pid_t){ 100 }, sizeof(pid_t));
	assert_non_null(b);
	assert_false(b->hello_ahead);
	deliver(build(CW_ANNOT_HELLO, 100, NULL, 0, NULL, NULL, NULL, 0), 100, false);
	assert_true(b->hello_ahead);
	procs[3] = (struct cw_proc){ .pid = 300, .tgid = 300 };
	deliver(build(CW_ANNOT_HELLO, 300, NULL, 0, NULL, NULL, NULL, 0), 300, false);
	assert_null(procs[3].preload);
	b = cw_hmap_find(&run.annot->buckets, &(pid_t){ 300 }, sizeof(pid_t));
	assert_non_null(b);
	assert_true(b->hello_ahead);
}

static void test_rate_limit(void **state)
{
	(void)state;
	size_t n = build(CW_ANNOT_HELLO, 100, NULL, 0, NULL, NULL, NULL, 0);
	for (int i = 0; i < (int)BURST + 500; i++)
		deliver(n, 100, false);
	assert_int_equal(run.annot->stats.accepted, (unsigned long long)BURST);
	assert_int_equal(run.annot->stats.flooded, 500);
	/* Another process has its own budget; time refills. */
	deliver(build(CW_ANNOT_HELLO, 200, NULL, 0, NULL, NULL, NULL, 0), 200, false);
	assert_int_equal(run.annot->stats.accepted, (unsigned long long)BURST + 1);
	now_s += 1.0;
	deliver(build(CW_ANNOT_HELLO, 100, NULL, 0, NULL, NULL, NULL, 0), 100, false);
	assert_int_equal(run.annot->stats.accepted, (unsigned long long)BURST + 2);
}

static void test_host_for_matching_connect_only(void **state)
{
	(void)state;
	struct sockaddr_in dst = sin_of("203.0.113.7", 443), other = sin_of("203.0.113.8", 443);
	struct cw_annot_addr a = { .family = AF_INET };
	memcpy(a.addr, &dst.sin_addr, 4);
	deliver(build(CW_ANNOT_RESOLVED, 100, NULL, 0, "files.example.test", NULL, &a, 1), 100, false);
	deliver(build(CW_ANNOT_NET, 100, &dst, sizeof(dst), NULL, NULL, NULL, 0), 100, false);

	struct cw_event ev;
	struct cw_annot_view v;
	memset(&ev, 0, sizeof(ev));
	ev.op.kind = CW_OP_CONNECT;
	ev.op.addr = (const struct sockaddr *)&dst;
	ev.op.addrlen = sizeof(dst);
	ev.d.verdict = CW_DENY;
	snprintf(ev.d.rule, sizeof(ev.d.rule), "verify:external_network:default");
	struct cw_decision before = ev.d;
	cw_annot_attach(&run, 100, 100, 1, &ev, &v);
	assert_non_null(v.host);
	assert_string_equal(v.host, "files.example.test");
	assert_string_equal(ev.op.host, "files.example.test");
	assert_string_equal(v.source, "preload");
	assert_memory_equal(&before, &ev.d, sizeof(before)); /* the decision is untouched */

	/* Another address, or another process: no host. */
	memset(&ev, 0, sizeof(ev));
	ev.op.kind = CW_OP_CONNECT;
	ev.op.addr = (const struct sockaddr *)&other;
	ev.op.addrlen = sizeof(other);
	cw_annot_attach(&run, 100, 100, 1, &ev, &v);
	assert_null(v.host);
	ev.op.addr = (const struct sockaddr *)&dst;
	cw_annot_attach(&run, 200, 200, 1, &ev, &v);
	assert_null(v.host);
	/* A child forked after the lookup inherits the name. */
	cw_annot_attach(&run, 300, 300, 100, &ev, &v);
	assert_non_null(v.host);
}

static void test_path_prefix(void **state)
{
	(void)state;
	/* The preload copied the path up to a page end: no NUL, a prefix. */
	size_t n = build(CW_ANNOT_FILE, 100, NULL, 0, NULL, "/home/u/.ss", NULL, 0);
	deliver(n, 100, false);
	/* With a NUL inside the text: exact, the rest ignored. */
	static const char t2[] = "/etc/shadow\0garbage";
	struct cw_annot_hdr hh = { .magic = CW_ANNOT_MAGIC, .type = CW_ANNOT_FILE, .tid = 100,
				   .textlen = sizeof(t2) - 1 };
	memcpy(buf, &hh, sizeof(hh));
	memcpy(buf + sizeof(hh), t2, sizeof(t2) - 1);
	deliver(sizeof(hh) + sizeof(t2) - 1, 100, false);
	assert_int_equal(run.annot->stats.accepted, 2);

	struct cw_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.op.kind = CW_OP_OPEN_READ;
	ev.raw_path = "/home/u/.ssh/id_rsa";
	ev.raw_path_len = strlen(ev.raw_path);
	assert_non_null(find_ann(run.annot, 100, 100, &ev));
	ev.raw_path = "/etc/shadow";
	ev.raw_path_len = strlen(ev.raw_path);
	assert_non_null(find_ann(run.annot, 100, 100, &ev));
	ev.raw_path = "/etc/shadow-";
	ev.raw_path_len = strlen(ev.raw_path);
	assert_null(find_ann(run.annot, 100, 100, &ev));
}

static int __attribute__((noinline)) named_function(int x)
{
	return x * 3 + 1;
}

static void test_symbols_from_the_mapped_file(void **state)
{
	(void)state;
	struct maps m;
	char out[640];
	uint64_t ip = (uint64_t)(uintptr_t)&named_function + 1;
	assert_int_equal(named_function(1), 4);
	assert_int_equal(maps_read(getpid(), &m), 0);
	run.annot->sym->loads_left = LOADS_PER_EVENT;
	assert_true(frame_format(run.annot, getpid(), &m, ip + 1, true, out, sizeof(out)));
	assert_non_null(strstr(out, "named_function+0x"));
	assert_non_null(strstr(out, "test_annot"));
	/* An address in no mapping is shown as a number. */
	assert_true(frame_format(run.annot, getpid(), &m, 0x10, true, out, sizeof(out)));
	assert_string_equal(out, "0x10");
	maps_free(&m);
}

/* The exec annotation of a fork child that has not exec'd is named with
 * its image owner's maps, read once and then kept; not when the parent
 * runs another program now, and not after the owner's exec. */
static void test_maps_of_the_image_owner_are_kept(void **state)
{
	(void)state;
	const pid_t child = 2147483646; /* above any pid_max: no /proc entry */
	struct cw_annot_view v;
	struct ann a;
	memset(&a, 0, sizeof(a));
	a.nframes = 1;
	a.frames[0] = (uint64_t)(uintptr_t)&named_function + 1;
	procs[2] = (struct cw_proc){ .pid = getpid(), .tgid = getpid(), .alive = true, .execed = true,
				     .start = 1.0, .exe = "/bin/sh" };
	procs[3] = (struct cw_proc){ .pid = child, .tgid = child, .ppid = getpid(), .alive = true,
				     .start = 2.0, .exe = "/bin/sh" };

	memset(&v, 0, sizeof(v));
	cw_annot_symbolize(&run, child, &a, &v);
	assert_non_null(v.site);
	assert_non_null(strstr(v.site, "named_function+0x"));
	uint64_t clock_after_read = run.annot->sym->maps_clock;
	/* The second time from the cache: no read, the same name. */
	memset(&v, 0, sizeof(v));
	cw_annot_symbolize(&run, child, &a, &v);
	assert_non_null(v.site);
	assert_non_null(strstr(v.site, "named_function+0x"));
	assert_int_equal(run.annot->sym->maps_clock, clock_after_read + 1);
	size_t kept = 0;
	for (size_t i = 0; i < MAPS_CACHE; i++)
		kept += run.annot->sym->maps_cache[i].use && run.annot->sym->maps_cache[i].owner == getpid();
	assert_int_equal(kept, 1);

	/* A frame in no mapping of the cached copy: not a hit. */
	struct ann b = a;
	b.frames[0] = 0x10;
	memset(&v, 0, sizeof(v));
	cw_annot_symbolize(&run, child, &b, &v);
	assert_string_equal(v.site, "0x10");

	/* The parent runs another program now: the child's image is its
	 * own, whose maps cannot be read here, so the frame stays a number. */
	procs[2].exe = "/usr/bin/python3";
	memset(&v, 0, sizeof(v));
	cw_annot_symbolize(&run, child, &a, &v);
	assert_non_null(v.site);
	assert_null(strstr(v.site, "named_function"));
	procs[2].exe = "/bin/sh";

	/* The owner's exec drops what was kept for it. */
	cw_annot_maps_cache_drop(run.annot, getpid());
	for (size_t i = 0; i < MAPS_CACHE; i++)
		assert_false(run.annot->sym->maps_cache[i].use && run.annot->sym->maps_cache[i].owner == getpid());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_malformed_rejected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attribution_is_the_kernels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_for_matching_connect_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_prefix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symbols_from_the_mapped_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_maps_of_the_image_owner_are_kept, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
