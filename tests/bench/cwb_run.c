/* cwb_run: run one command and measure it, for the benchmark driver.
 *
 *   cwb_run [--netns] [--cpu N] [--preload SO] [--out FILE] -- COMMAND [ARG...]
 *
 * Writes one line to FILE (default: stderr, after the command's output):
 *   cwb_run: wall=S user=S sys=S maxrss_kb=K status=N
 *
 * wall is CLOCK_MONOTONIC around fork..wait4. user/sys/maxrss come from
 * the wait4() rusage of the direct child. The kernel fills that with
 * RUSAGE_BOTH of the child: its own CPU plus that of every descendant it
 * (or a descendant) waited for, so CPU is the whole tree's, supervisor
 * included. ru_maxrss, however, is max(child's own, largest reaped
 * descendant): the peak of the single biggest process in the tree, NOT the
 * supervisor's own peak when the supervisor is the child. The supervisor's
 * own peak comes from cwb_hwm.so (see there).
 *
 * --netns: unshare(CLONE_NEWNET) and bring lo up before forking, so that
 * the command (whatever the mode) sees a private network namespace with a
 * working loopback and no route anywhere else. Done before the clock
 * starts, identically in every mode.
 * --cpu N: pin the command (and so everything it starts) to CPU N.
 * --preload SO: set LD_PRELOAD=SO for the command only (cwb_hwm.so). */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int lo_up(void)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	int rc = 0;
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		rc = -errno;
	else {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
			rc = -errno;
	}
	close(s);
	return rc;
}

int main(int argc, char **argv)
{
	int i = 1, cpu = -1;
	int netns = 0;
	const char *out = NULL, *preload = NULL;
	for (; i < argc; i++) {
		if (strcmp(argv[i], "--netns") == 0)
			netns = 1;
		else if (strcmp(argv[i], "--cpu") == 0 && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (strcmp(argv[i], "--preload") == 0 && i + 1 < argc)
			preload = argv[++i];
		else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: cwb_run [--netns] [--cpu N] [--preload SO] [--out FILE] -- COMMAND [ARG...]\n");
		return 125;
	}
	if (netns) {
		if (unshare(CLONE_NEWNET) < 0) {
			fprintf(stderr, "cwb_run: unshare(CLONE_NEWNET): %s\n", strerror(errno));
			return 125;
		}
		int rc = lo_up();
		if (rc < 0) {
			fprintf(stderr, "cwb_run: bringing lo up: %s\n", strerror(-rc));
			return 125;
		}
	}
	double t0 = now();
	pid_t pid = fork();
	if (pid < 0) {
		perror("cwb_run: fork");
		return 125;
	}
	if (pid == 0) {
		if (cpu >= 0) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set) < 0) {
				perror("cwb_run: sched_setaffinity");
				_exit(125);
			}
		}
		if (preload && setenv("LD_PRELOAD", preload, 1) < 0)
			_exit(125);
		execvp(argv[i], argv + i);
		fprintf(stderr, "cwb_run: %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("cwb_run: wait4");
			return 125;
		}
	}
	double wall = now() - t0;
	int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	FILE *f = out ? fopen(out, "w") : stderr;
	if (!f) {
		perror(out);
		return 125;
	}
	fprintf(f, "cwb_run: wall=%.6f user=%.6f sys=%.6f maxrss_kb=%ld status=%d\n", wall,
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss, status);
	if (f != stderr)
		fclose(f);
	return status;
}
