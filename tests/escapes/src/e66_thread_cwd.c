/* E66: per-thread cwd: a thread unshare(CLONE_FS)s, chdir()s to DIR
 * (outside the workspace) and opens NAME relative to it for writing,
 * while the main thread's cwd stays in the workspace (where a file NAME
 * also exists). Also CLONE_FILES: the thread's fd table differs. */
#include "esc.h"
#include <pthread.h>
#include <sched.h>

static const char *dir, *name;
static int result = -1;

static void *worker(void *arg)
{
	(void)arg;
	if (unshare(CLONE_FS) < 0 || chdir(dir) < 0) {
		result = -errno;
		return NULL;
	}
	result = esc_append(name, "pwn-e66\n");
	return NULL;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e66_thread_cwd DIR NAME");
	dir = argv[1];
	name = argv[2];
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	printf("thread append -> %d\n", result);
	return result == 0 ? 0 : 1;
}
