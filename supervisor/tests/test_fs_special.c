/* Unit tests of what the special-file and key handlers decide without a
 * notification: secrets by content (handlers/keys.c) on real files, and
 * how handlers/fs_special.c classifies /proc paths and devices, with this
 * test process (and its real /proc) as the target. The few supervisor
 * functions fs_special.c calls on a live notification are stubbed. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/fs_special.h"
#include "supervisor/handlers/keys.h"
#include "supervisor/secret_ids.h"

/* ---- stubs: never reached by these tests ---- */

bool cw_event_decide(struct cw_notif *n, struct cw_event *ev)
{
	(void)n;
	(void)ev;
	fail();
	return false;
}
void cw_event_deny(struct cw_notif *n, struct cw_event *ev)
{
	(void)n;
	(void)ev;
	fail();
}
int cw_answer_send_late(int listener, uint64_t id, const struct cw_answer *a)
{
	(void)listener;
	(void)id;
	(void)a;
	fail();
	return 0;
}
bool cw_task_in_tree(const struct cw_notif *n, pid_t pid)
{
	(void)n;
	(void)pid;
	fail();
	return false;
}
/* No home secret reached through a link here. */
const char *cw_secret_ids_linked(struct cw_run *r, const char *path)
{
	(void)r;
	(void)path;
	return NULL;
}

const char *cw_secret_ids_find(struct cw_run *run, const struct stat *st)
{
	(void)run;
	(void)st;
	fail();
	return NULL;
}

/* No private key in the files here (fs_open.c's key checks). */
const char *cw_fs_key_alias(struct cw_run *run, const char *path, int fd, const struct stat *st)
{
	(void)run;
	(void)path;
	(void)fd;
	(void)st;
	return NULL;
}
bool cw_fs_key_before_write(struct cw_run *run, const char *path, int fd, const struct stat *st,
			    unsigned long long flags)
{
	(void)run;
	(void)path;
	(void)fd;
	(void)st;
	(void)flags;
	return true;
}

/* Reached only through the stubs above, which find no secret. */
bool cw_fs_decide_secret_read(struct cw_notif *n, struct cw_event *ev, const char *alias)
{
	(void)n;
	(void)ev;
	(void)alias;
	fail();
	return false;
}

static char dir[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/cw-special-XXXXXX";
	return mkdtemp(tmpl) && realpath(tmpl, dir) && chdir(dir) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A file NAME holding SIZE bytes of filler with TEXT at offset AT. */
static int make_file(const char *name, size_t size, const char *text, size_t at)
{
	char *buf = malloc(size ? size : 1);
	assert_non_null(buf);
	memset(buf, 'A', size);
	for (size_t i = 64; i < size; i += 64)
		buf[i] = '\n';
	if (text)
		memcpy(buf + at, text, strlen(text));
	int fd = open(name, O_CREAT | O_TRUNC | O_RDWR, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, size), (ssize_t)size);
	free(buf);
	return fd;
}

/* ---- keys.c ---- */

static void test_key_markers(void **state)
{
	(void)state;
	int fd = make_file("rsa.pem", 4096, "-----BEGIN RSA PRIVATE KEY-----", 100);
	assert_int_equal(cw_keys_scan_fd(fd, 4096), 1);
	close(fd);
	fd = make_file("putty.ppk", 300, "PuTTY-User-Key-File-3: ssh-ed25519", 0);
	assert_int_equal(cw_keys_scan_fd(fd, 300), 1);
	close(fd);
	/* A certificate is no key. */
	fd = make_file("cert.pem", 2000, "-----BEGIN CERTIFICATE-----", 0);
	assert_int_equal(cw_keys_scan_fd(fd, 2000), 0);
	close(fd);
	/* Across the 16 KiB read boundary: the overlap keeps it whole. */
	fd = make_file("split.key", 40000, "-----BEGIN PRIVATE KEY-----", 16384 - 20);
	assert_int_equal(cw_keys_scan_fd(fd, 40000), 1);
	close(fd);
	/* Past the bytes looked at: not seen (the caller's bound). */
	fd = make_file("late.key", 200000, "-----BEGIN PRIVATE KEY-----", 150000);
	assert_int_equal(cw_keys_scan_fd(fd, 65536), 0);
	assert_int_equal(cw_keys_scan_fd(fd, 200000), 1);
	close(fd);
	/* Empty; unreadable. */
	fd = make_file("empty", 0, NULL, 0);
	assert_int_equal(cw_keys_scan_fd(fd, 4096), 0);
	close(fd);
	assert_int_equal(cw_keys_scan_fd(fd, 4096), -EBADF);
	int d = open(".", O_RDONLY | O_DIRECTORY);
	assert_int_equal(cw_keys_scan_fd(d, 4096), -EISDIR);
	close(d);
}

/* cw_keys_free: a .pem/.key name that holds no key is not a secret, and
 * the answer names the very file looked at; anything that could not be
 * looked at as a plain file stays a secret. */
static void test_keys_free(void **state)
{
	(void)state;
	char path[PATH_MAX + 32];
	dev_t dev = 0;
	ino_t ino = 0;
	struct stat st;
	close(make_file("chain.pem", 3000, "-----BEGIN CERTIFICATE-----", 0));
	snprintf(path, sizeof(path), "%s/chain.pem", dir);
	assert_true(cw_keys_free(path, &dev, &ino));
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_dev == dev && st.st_ino == ino);
	close(make_file("id.pem", 3000, "-----BEGIN OPENSSH PRIVATE KEY-----", 1500));
	snprintf(path, sizeof(path), "%s/id.pem", dir);
	assert_false(cw_keys_free(path, &dev, &ino));
	/* A symlink to the harmless one: not followed. */
	assert_int_equal(symlink("chain.pem", "link.pem"), 0);
	snprintf(path, sizeof(path), "%s/link.pem", dir);
	assert_false(cw_keys_free(path, &dev, &ino));
	/* Over 4 MiB: not read, kept a secret. */
	close(make_file("huge.pem", (4u << 20) + 1, NULL, 0));
	snprintf(path, sizeof(path), "%s/huge.pem", dir);
	assert_false(cw_keys_free(path, &dev, &ino));
	/* A FIFO: no block (O_NONBLOCK), not a regular file. */
	assert_int_equal(mkfifo("pipe.pem", 0600), 0);
	snprintf(path, sizeof(path), "%s/pipe.pem", dir);
	assert_false(cw_keys_free(path, &dev, &ino));
	assert_false(cw_keys_free("/nonexistent/x.pem", &dev, &ino));
}

static void test_keys_where_and_how_much(void **state)
{
	(void)state;
	assert_true(cw_keys_worth_scanning("/home/u/notes.txt", 64));
	assert_false(cw_keys_worth_scanning("/home/u/notes.txt", 63));
	assert_false(cw_keys_worth_scanning("notes.txt", 4096)); /* not resolved */
	assert_false(cw_keys_worth_scanning(NULL, 4096));
	assert_false(cw_keys_worth_scanning("/usr/share/doc/x", 4096));
	assert_false(cw_keys_worth_scanning("/proc/self/environ", 4096));
	assert_true(cw_keys_worth_scanning("/usr/local/etc/x", 4096));
	assert_true(cw_keys_worth_scanning("/usrx/y", 4096)); /* a prefix is not a parent */
	assert_int_equal(cw_keys_scan_size(0), 0);
	assert_int_equal(cw_keys_scan_size(100), 100);
	assert_int_equal(cw_keys_scan_size(65536), 65536);
	assert_int_equal(cw_keys_scan_size(65537), 65536);
	assert_int_equal(cw_keys_scan_size(1LL << 40), 65536);
}

/* ---- fs_special.c ---- */

static void test_proc_opener_checked(void **state)
{
	(void)state;
	char p[128];
	pid_t me = getpid();
	/* Not about a process, or checked at read time: yes for anyone. */
	assert_true(cw_proc_open_allowed("/proc/cpuinfo", me));
	assert_true(cw_proc_open_allowed("/proc/sys/kernel/ostype", me));
	assert_true(cw_proc_open_allowed("/proc/1/status", me));
	assert_true(cw_proc_open_allowed("/proc/1/cmdline", me));
	assert_true(cw_proc_open_allowed("/etc/passwd", me));
	/* Opener-checked files of another process: no. */
	assert_false(cw_proc_open_allowed("/proc/1/environ", me));
	assert_false(cw_proc_open_allowed("/proc/1/mem", me));
	assert_false(cw_proc_open_allowed("/proc/1/maps", me));
	assert_false(cw_proc_open_allowed("/proc/1/ns/net", me));
	assert_false(cw_proc_open_allowed("/proc/1/task/1/environ", me));
	assert_false(cw_proc_open_allowed("/proc/1/fdinfo/0", me));
	/* ... of the target's own thread group: yes, by tgid or a thread id. */
	snprintf(p, sizeof(p), "/proc/%d/environ", (int)me);
	assert_true(cw_proc_open_allowed(p, me));
	snprintf(p, sizeof(p), "/proc/%d/task/%d/mem", (int)me, (int)me);
	assert_true(cw_proc_open_allowed(p, me));
	/* Names that only start like an opener-checked one are not. */
	assert_true(cw_proc_open_allowed("/proc/1/mem_x", me));
	assert_true(cw_proc_open_allowed("/proc/1/statm", me));
}

static void test_proc_ns_link(void **state)
{
	(void)state;
	assert_true(cw_proc_ns_link("/proc/1/ns/net"));
	assert_true(cw_proc_ns_link("/proc/42/task/43/ns/pid_for_children"));
	assert_false(cw_proc_ns_link("/proc/1/ns"));
	assert_false(cw_proc_ns_link("/proc/1/ns/"));
	assert_false(cw_proc_ns_link("/proc/1/ns/net/x"));
	assert_false(cw_proc_ns_link("/proc/self/ns/net")); /* resolve.c gives pids */
	assert_false(cw_proc_ns_link("/proc/1/task/ns/net"));
	assert_false(cw_proc_ns_link("/tmp/proc/1/ns/net"));
}

static void test_device_classes(void **state)
{
	(void)state;
	assert_true(cw_quick_device(makedev(1, 3)));   /* /dev/null */
	assert_true(cw_quick_device(makedev(5, 2)));   /* /dev/ptmx */
	assert_true(cw_quick_device(makedev(136, 4))); /* /dev/pts/4 */
	assert_false(cw_quick_device(makedev(4, 64))); /* a serial line may wait for carrier */
	assert_false(cw_quick_device(makedev(10, 200))); /* /dev/net/tun: unknown, a worker opens */
	assert_true(cw_terminal_device(makedev(136, 0)));
	assert_true(cw_terminal_device(makedev(143, 255)));
	assert_true(cw_terminal_device(makedev(4, 1)));  /* tty1 */
	assert_true(cw_terminal_device(makedev(5, 1)));  /* console */
	assert_false(cw_terminal_device(makedev(5, 0))); /* /dev/tty: the opener's own, elsewhere */
	assert_false(cw_terminal_device(makedev(5, 2))); /* /dev/ptmx makes a new one */
	assert_false(cw_terminal_device(makedev(1, 3)));
	/* The real /dev/null is what its number says. */
	struct stat st;
	if (stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode))
		assert_true(cw_quick_device(st.st_rdev) && !cw_terminal_device(st.st_rdev));
}

/* /proc/PID directories are recognised by what they are (a numeric name
 * whose parent is the procfs root), not by the path's spelling. */
static void test_proc_pid_dir(void **state)
{
	(void)state;
	char p[64];
	struct stat st;
	snprintf(p, sizeof(p), "/proc/%d", (int)getpid());
	int fd = open(p, O_PATH | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(cw_proc_pid_dir(p, fd, &st), getpid());
	snprintf(p, sizeof(p), "/proc/%d/", (int)getpid());
	assert_int_equal(cw_proc_pid_dir(p, fd, &st), getpid());
	close(fd);
	/* A thread's directory under task/ is not a process directory. */
	snprintf(p, sizeof(p), "/proc/%d/task/%d", (int)getpid(), (int)getpid());
	fd = open(p, O_PATH | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(cw_proc_pid_dir(p, fd, &st), 0);
	close(fd);
	/* A directory named like a pid outside procfs is not one either. */
	assert_int_equal(mkdir("12345", 0755), 0);
	fd = open("12345", O_PATH | O_DIRECTORY);
	assert_int_equal(fstat(fd, &st), 0);
	char q[PATH_MAX + 16];
	snprintf(q, sizeof(q), "%s/12345", dir);
	assert_int_equal(cw_proc_pid_dir(q, fd, &st), 0);
	close(fd);
	fd = open("/proc/self", O_PATH | O_DIRECTORY);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(cw_proc_pid_dir("/proc/self", fd, &st), 0); /* not digits */
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_markers),
		cmocka_unit_test(test_keys_free),
		cmocka_unit_test(test_keys_where_and_how_much),
		cmocka_unit_test(test_proc_opener_checked),
		cmocka_unit_test(test_proc_ns_link),
		cmocka_unit_test(test_device_classes),
		cmocka_unit_test(test_proc_pid_dir),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
