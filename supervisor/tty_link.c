/* The tty link: the job's process group is never orphaned while the run
 * lasts (tty_link.h, e189).
 *
 * The kernel calls a process group orphaned when no member has a parent
 * in another group of the same session (will_become_orphaned_pgrp). A
 * group that becomes so while a member is stopped gets SIGHUP and SIGCONT
 * (kill_orphaned_pgrp), from an exit the tree chose: one of its processes
 * that moved to a group of its own exits, leaving its stopped child in
 * the job's group. The link is two processes outside the tree: a helper
 * H in a new group of capwatch's session, and its child K in the job's
 * group. K's parent is in another group of the same session, so the
 * job's group has a member that keeps it linked for as long as K lives.
 *
 * H is made by a double fork, so that it is never capwatch's child (the
 * portable back end reaps every child of capwatch as a process of the
 * tree). Both run nothing but system calls (capwatch has threads), hold
 * nothing of capwatch's but their pipes, and block every signal: K is in
 * the terminal's foreground job, and a ^C, ^Z or hang-up meant for the
 * command must not end the link. H ends K when capwatch writes a byte,
 * after the tree is gone; at end of file without one (capwatch died), it
 * waits two seconds first, for PTRACE_O_EXITKILL or the sentinel's
 * cgroup.kill to take the tree. */
#include "config.h"

#include "supervisor/tty_link.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/log.h"
#include "supervisor/record.h"
#include "supervisor/state.h"

/* H: never returns. */
static void link_helper(int ctl, int ready, pid_t job)
{
	prctl(PR_SET_NAME, "capwatch-ttylink", 0, 0, 0);
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	int lo = ctl < ready ? ctl : ready, hi = ctl < ready ? ready : ctl;
	for (int fd = 0; fd < 3; fd++)
		if (fd != lo && fd != hi)
			close(fd);
	if (lo > 3)
		syscall(SYS_close_range, 3U, (unsigned)lo - 1, 0U);
	if (hi > lo + 1)
		syscall(SYS_close_range, (unsigned)lo + 1, (unsigned)hi - 1, 0U);
	syscall(SYS_close_range, (unsigned)hi + 1, ~0U, 0U);

	char ok = 'n';
	pid_t k = -1;
	if (setpgid(0, 0) == 0) {
		pid_t me = getpid();
		k = fork();
		if (k == 0) {
			/* K: the job's group member with a parent elsewhere
			 * in the session. Gone with H. */
			close(ctl);
			close(ready);
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
			if (getppid() != me)
				_exit(0);
			setpgid(0, job);
			for (;;)
				pause();
		}
		/* Either of the two setpgid calls may come first. */
		if (k > 0 && setpgid(k, job) == 0 && getpgid(k) == job)
			ok = 'y';
	}
	if (write(ready, &ok, 1) < 0)
		ok = 'n';
	close(ready);
	if (ok == 'y') {
		char c;
		ssize_t r;
		while ((r = read(ctl, &c, 1)) < 0 && errno == EINTR)
			;
		if (r <= 0) {
			struct timespec ts = { 2, 0 };
			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
		}
	}
	if (k > 0) {
		kill(k, SIGKILL);
		while (waitpid(k, NULL, 0) < 0 && errno == EINTR)
			;
	}
	_exit(0);
}

void cw_tty_link_start(struct cw_run *run)
{
	if (!run->tty_mode)
		return;
	pid_t job = getpgrp();
	int ctl[2], rdy[2];
	if (pipe2(ctl, O_CLOEXEC) < 0)
		goto failed;
	if (pipe2(rdy, O_CLOEXEC) < 0) {
		close(ctl[0]);
		close(ctl[1]);
		goto failed;
	}
	pid_t x = fork();
	if (x == 0) {
		close(ctl[1]);
		close(rdy[0]);
		pid_t h = fork();
		if (h != 0)
			_exit(h < 0);
		link_helper(ctl[0], rdy[1], job);
	}
	close(ctl[0]);
	close(rdy[1]);
	if (x > 0)
		while (waitpid(x, NULL, 0) < 0 && errno == EINTR)
			;
	char ok = 0;
	struct pollfd p = { .fd = rdy[0], .events = POLLIN };
	if (x > 0 && poll(&p, 1, 2000) == 1 && read(rdy[0], &ok, 1) != 1)
		ok = 0;
	close(rdy[0]);
	if (ok == 'y') {
		run->tty_link_w = ctl[1];
		return;
	}
	close(ctl[1]); /* H, if any, ends K and itself at end of file */
failed:
	cw_record_note(run, 0, "warning",
		       "tty mode: the job's process group could not be kept linked to its session; "
		       "a process of the tree that orphans it with a stopped member makes the kernel "
		       "send SIGHUP and SIGCONT to the whole group, processes outside the tree included");
}

void cw_tty_link_stop(struct cw_run *run)
{
	if (run->tty_link_w < 0)
		return;
	if (write(run->tty_link_w, "x", 1) < 0)
		cw_debug("tty link: %s", strerror(errno));
	close(run->tty_link_w);
	run->tty_link_w = -1;
}
