/* cw_cgroup_member against the real kernel: a process in a cgroup of its
 * own forks 40,000 children, and each fork event read from the proc
 * connector is asked about at once, as the kernel back end asks it. The
 * kernel sends that event before it attaches the child to its cgroup:
 * read without the wait, about one child in 10,000 read as the root's
 * (the CI failure of e178; with the wait taken out, this test saw 8-16
 * such in each of 3 runs of 35,000; 0 in 6 with it). Every child must read as a member.
 * Skipped, saying why, without root, a cgroup v2 mount or the connector. */
#define _GNU_SOURCE
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <cmocka.h>
#include "supervisor/cgmember.h"
#include "supervisor/util.h"

#define FORKS 40000
#define BATCH 200 /* children the forker keeps as zombies until read */

static int connector(void)
{
	int s = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (s < 0)
		return -1;
	struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0 };
	int big = 8 << 20;
	struct timeval tv = { 20, 0 }; /* never a hang: the test fails instead */
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	struct __attribute__((aligned(NLMSG_ALIGNTO))) {
		struct nlmsghdr h;
		struct __attribute__((packed)) {
			struct cn_msg m;
			enum proc_cn_mcast_op op;
		} b;
	} msg;
	memset(&msg, 0, sizeof(msg));
	msg.h.nlmsg_len = sizeof(msg);
	msg.h.nlmsg_type = NLMSG_DONE;
	msg.b.m.id.idx = CN_IDX_PROC;
	msg.b.m.id.val = CN_VAL_PROC;
	msg.b.m.len = sizeof(enum proc_cn_mcast_op);
	msg.b.op = PROC_CN_MCAST_LISTEN;
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || send(s, &msg, sizeof(msg), 0) < 0) {
		close(s);
		return -1;
	}
	return s;
}

/* A cgroup of this test's own under its cgroup: DIR (absolute) and the
 * line its members read ("0::/..."). */
static bool make_cgroup(char *dir, size_t nd, char *line, size_t nl)
{
	const char *mnts[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	const char *mnt = NULL;
	for (size_t i = 0; i < 2 && !mnt; i++) {
		struct statfs sf;
		if (statfs(mnts[i], &sf) == 0 && sf.f_type == 0x63677270)
			mnt = mnts[i];
	}
	char buf[2048];
	if (!mnt || cw_read_small("/proc/self/cgroup", buf, sizeof(buf)) < 0)
		return false;
	char *own = strstr(buf, "0::");
	if (!own)
		return false;
	own += 3;
	own[strcspn(own, "\n")] = '\0';
	if (strcmp(own, "/") == 0)
		own = "";
	snprintf(dir, nd, "%s%s/cw-test-cgmember-%d", mnt, own, (int)getpid());
	snprintf(line, nl, "0::%s/cw-test-cgmember-%d", own, (int)getpid());
	return mkdir(dir, 0755) == 0;
}

static void forker(const char *dir, int go)
{
	char p[700];
	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "0\n", 2) != 2)
		_exit(2);
	close(fd);
	for (int i = 0; i < FORKS; i += BATCH) {
		/* The children live until the test has read their batch: an
		 * exiting task may read as the root's too (it has run: not
		 * the window this test is about). */
		int hold[2];
		if (pipe(hold) < 0)
			_exit(3);
		for (int j = 0; j < BATCH; j++) {
			pid_t c = fork();
			if (c == 0) {
				char x;
				close(hold[1]);
				_exit(read(hold[0], &x, 1) == 0 ? 0 : 1);
			}
			if (c < 0)
				_exit(3);
		}
		close(hold[0]);
		char b;
		if (read(go, &b, 1) != 1) /* the test has read this batch */
			_exit(4);
		close(hold[1]);
		while (waitpid(-1, NULL, 0) > 0)
			;
	}
	_exit(0);
}

static void test_fork_window(void **state)
{
	(void)state;
	char dir[600], line[600];
	int s = geteuid() == 0 ? connector() : -1;
	if (s < 0) {
		print_message("skip: no proc connector here (root needed)\n");
		skip();
	}
	if (!make_cgroup(dir, sizeof(dir), line, sizeof(line))) {
		close(s);
		print_message("skip: no cgroup v2 of this test's own here (%s)\n", strerror(errno));
		skip();
	}
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t f = fork();
	assert_true(f >= 0);
	if (f == 0) {
		close(go[1]);
		forker(dir, go[0]);
	}
	close(go[0]);
	long seen = 0, raw_root = 0, asked = 0, missed = 0, lost = 0;
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	bool done = false;
	while (!done) {
		ssize_t len = recv(s, buf, sizeof(buf), 0);
		if (len < 0 && errno == ENOBUFS) {
			/* Dropped by a busy machine: which forks, unknown
			 * (the batches wait on counts): not this test's. */
			lost++;
			break;
		}
		if (len <= 0)
			break;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
			struct cn_msg *m = NLMSG_DATA(h);
			struct proc_event *e = (struct proc_event *)m->data;
			if (e->what == PROC_EVENT_EXIT && e->event_data.exit.process_pid == f) {
				done = true;
				break;
			}
			if (e->what != PROC_EVENT_FORK || e->event_data.fork.parent_tgid != f)
				continue;
			pid_t c = e->event_data.fork.child_pid;
			if (seen++ % 8 == 7) {
				/* one in 8 read as it is, to see the window */
				char p[64], b[1024];
				snprintf(p, sizeof(p), "/proc/%d/cgroup", (int)c);
				if (cw_read_small(p, b, sizeof(b)) > 0 &&
				    (strncmp(b, "0::/\n", 5) == 0 || strstr(b, "\n0::/\n")))
					raw_root++;
			} else {
				asked++;
				if (!cw_cgroup_member(line, c))
					missed++;
			}
			if (seen % BATCH == 0 && write(go[1], "g", 1) != 1)
				done = true;
		}
	}
	close(go[1]);
	int st;
	assert_int_equal(waitpid(f, &st, 0), f);
	rmdir(dir);
	close(s);
	print_message("forks %ld: %ld asked, %ld read as another cgroup's; %ld read raw as the root's; "
		      "%ld losses\n", seen, asked, missed, raw_root, lost);
	if (lost) {
		print_message("skip: the connector dropped events (a busy machine): the window untested\n");
		skip();
	}
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(seen, FORKS);
	assert_int_equal(missed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
