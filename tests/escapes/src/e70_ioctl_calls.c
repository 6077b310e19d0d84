/* E70: ioctls that act beyond the descriptor they are made on (issue 14
 * item 4).
 *
 *   e70_ioctl_calls setown|setown_pgrp|siocspgrp PID|CAPWATCH|SELF|CHILD
 *       FIOSETOWN (SIOCSPGRP) on a socket: the owner that gets
 *       SIGIO; setown_pgrp names the target's process group (-pgid).
 *       Prints the owner F_GETOWN reads back.
 *   e70_ioctl_calls setflags|fssetxattr FILE
 *       FS_IOC_SETFLAGS (FS_IOC_FSSETXATTR) adding the no-dump flag, on a
 *       descriptor opened O_RDONLY (ownership suffices).
 *   e70_ioctl_calls setflags_race WSFILE OUTFILE SECONDS
 *       E11 on the same call: a thread swaps descriptor N between WSFILE
 *       and OUTFILE while the main thread sets no-dump through N. A hit is
 *       OUTFILE getting the flag. Prints "RACE attempts= ok= hits=".
 *   e70_ioctl_calls setown_ex_race PID SECONDS
 *       fcntl(F_SETOWN_EX) with the owner's pid flipped in memory between
 *       the caller's own and PID; a hit is PID becoming the owner.
 *
 * Exit 0 when the call succeeded, 3 on EPERM, 4 on another error. */
#include "esc.h"
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/fs.h>
#include <linux/sockios.h>

static pid_t find_capwatch(void)
{
	pid_t p = getppid();
	for (int depth = 0; p > 1 && depth < 16; depth++) {
		char path[64], buf[512];
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)p);
		FILE *f = fopen(path, "r");
		if (!f)
			return -1;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		buf[strcspn(buf, "\n")] = '\0';
		if (strcmp(buf, "capwatch") == 0)
			return p;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
		f = fopen(path, "r");
		if (!f)
			return -1;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		char *rp = strrchr(buf, ')');
		char st;
		int pp;
		if (!rp || sscanf(rp + 1, " %c %d", &st, &pp) != 2)
			return -1;
		p = pp;
	}
	return -1;
}

static int result(const char *what, int r, int e)
{
	if (r < 0) {
		printf("%s err=%s (%s)\n", what, strerrorname_np(e), strerror(e));
		return e == EPERM ? 3 : 4;
	}
	printf("%s ok\n", what);
	return 0;
}

static int owner(const char *mode, const char *t)
{
	pid_t pid, child = 0;
	if (!strcmp(t, "CAPWATCH")) {
		if ((pid = find_capwatch()) < 0) {
			printf("no capwatch ancestor\n");
			return 2;
		}
	} else if (!strcmp(t, "SELF")) {
		pid = getpid();
	} else if (!strcmp(t, "CHILD")) {
		child = fork();
		if (child == 0) {
			setpgid(0, 0);
			pause();
			_exit(0);
		}
		setpgid(child, child);
		pid = child;
	} else {
		pid = atoi(t);
	}
	int v = pid;
	if (!strcmp(mode, "setown_pgrp")) {
		pid_t g = getpgid(pid);
		v = g > 0 ? -g : -pid;
	}
	int fds[2];
	int r;
	/* Both commands are the socket layer's (a pipe answers ENOTTY). */
	r = socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
	if (r < 0)
		return result("setup", -1, errno);
	r = ioctl(fds[0], !strcmp(mode, "siocspgrp") ? SIOCSPGRP : FIOSETOWN, &v);
	int e = errno;
	int got = fcntl(fds[0], F_GETOWN);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	char what[128];
	snprintf(what, sizeof(what), "%s %d owner=%d", mode, v, got);
	return result(what, r, e);
}

static int setflags(const char *mode, const char *file)
{
	int fd = open(file, O_RDONLY);
	if (fd < 0)
		return result("open", -1, errno);
	int r, e;
	if (!strcmp(mode, "fssetxattr")) {
		struct fsxattr fx;
		if (ioctl(fd, FS_IOC_FSGETXATTR, &fx) < 0)
			return result("FS_IOC_FSGETXATTR", -1, errno);
		fx.fsx_xflags |= FS_XFLAG_NODUMP;
		r = ioctl(fd, FS_IOC_FSSETXATTR, &fx);
	} else {
		int fl;
		if (ioctl(fd, FS_IOC_GETFLAGS, &fl) < 0)
			return result("FS_IOC_GETFLAGS", -1, errno);
		fl |= FS_NODUMP_FL;
		r = ioctl(fd, FS_IOC_SETFLAGS, &fl);
	}
	e = errno;
	return result(mode, r, e);
}

static atomic_int stop;
static int race_fd = 50, ws_fd, out_fd;

static void *flipper(void *a)
{
	(void)a;
	while (!atomic_load(&stop)) {
		dup2(ws_fd, race_fd);
		dup2(out_fd, race_fd);
	}
	return NULL;
}

static int flags_of(int fd)
{
	int fl = 0;
	ioctl(fd, FS_IOC_GETFLAGS, &fl);
	return fl;
}

static int race(const char *ws, const char *out, double secs)
{
	ws_fd = open(ws, O_RDONLY);
	out_fd = open(out, O_RDONLY);
	if (ws_fd < 0 || out_fd < 0)
		return result("open", -1, errno);
	dup2(ws_fd, race_fd);
	pthread_t th;
	pthread_create(&th, NULL, flipper, NULL);
	long attempts = 0, ok = 0, hits = 0;
	double end = esc_now() + secs;
	while (esc_now() < end) {
		int fl = FS_NODUMP_FL;
		attempts++;
		if (ioctl(race_fd, FS_IOC_SETFLAGS, &fl) == 0)
			ok++;
		if (flags_of(out_fd) & FS_NODUMP_FL) {
			hits++;
			break;
		}
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("RACE attempts=%ld ok=%ld hits=%ld\n", attempts, ok, hits);
	return hits ? 1 : 0;
}

/* The same owner through fcntl(F_SETOWN_EX), whose {type, pid} is in
 * memory: a thread flips the pid between the caller's own and VICTIM's. A
 * hit is VICTIM becoming the owner. */
static struct f_owner_ex race_ox;
static pid_t race_self, race_victim;

static void *ox_flipper(void *a)
{
	(void)a;
	while (!atomic_load(&stop)) {
		__atomic_store_n(&race_ox.pid, race_victim, __ATOMIC_RELAXED);
		__atomic_store_n(&race_ox.pid, race_self, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int setown_ex_race(pid_t victim, double secs)
{
	int fds[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
		return result("socketpair", -1, errno);
	race_self = getpid();
	race_victim = victim;
	race_ox.type = F_OWNER_PID;
	race_ox.pid = race_self;
	pthread_t th;
	pthread_create(&th, NULL, ox_flipper, NULL);
	long attempts = 0, ok = 0, hits = 0;
	double end = esc_now() + secs;
	while (esc_now() < end) {
		attempts++;
		if (fcntl(fds[0], F_SETOWN_EX, &race_ox) == 0)
			ok++;
		struct f_owner_ex got = { 0, 0 };
		fcntl(fds[0], F_GETOWN_EX, &got);
		if (got.pid == victim) {
			hits++;
			break;
		}
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("RACE attempts=%ld ok=%ld hits=%ld\n", attempts, ok, hits);
	return hits ? 1 : 0;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e70_ioctl_calls MODE ARG...");
	const char *mode = argv[1];
	if (!strcmp(mode, "setown") || !strcmp(mode, "setown_pgrp") || !strcmp(mode, "siocspgrp"))
		return owner(mode, argv[2]);
	if (!strcmp(mode, "setflags") || !strcmp(mode, "fssetxattr"))
		return setflags(mode, argv[2]);
	if (!strcmp(mode, "setflags_race")) {
		esc_usage(argc, 5, "e70_ioctl_calls setflags_race WSFILE OUTFILE SECONDS");
		return race(argv[2], argv[3], atof(argv[4]));
	}
	if (!strcmp(mode, "setown_ex_race")) {
		esc_usage(argc, 4, "e70_ioctl_calls setown_ex_race PID SECONDS");
		return setown_ex_race(atoi(argv[2]), atof(argv[3]));
	}
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
