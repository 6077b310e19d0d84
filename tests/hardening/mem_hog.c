/* The command side of tests/hardening/memory_bounds.sh: what made the
 * supervisor's memory grow without bound (red team 24 F1, F2, F4).
 *   mem_hog argv N K      N children, each execs /bin/true with K empty
 *                         arguments (F1: kept per image; F4: read one by
 *                         one by the kernel back end's notification)
 *   mem_hog rename N D    a directory D levels of 250-byte names deep,
 *                         then N renames a<->b in it (F2)
 *   mem_hog create N      N new files in the current directory (F2's
 *                         bound on distinct paths)
 * Prints what it did; exits 0 when all of it succeeded. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int do_argv(int n, long k)
{
	/* room for K pointers in the new image's stack (ARG_MAX is a quarter
	 * of RLIMIT_STACK) */
	struct rlimit rl = { 64 << 20, 64 << 20 };
	setrlimit(RLIMIT_STACK, &rl);
	char **av = calloc((size_t)k + 2, sizeof(char *));
	if (!av)
		return 1;
	av[0] = "true";
	for (long i = 1; i <= k; i++)
		av[i] = "";
	int ok = 0;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0) {
			execv("/bin/true", av);
			_exit(9);
		}
		int st;
		if (p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ok++;
	}
	printf("%d\n", ok);
	return ok == n ? 0 : 1;
}

static int do_rename(long n, int depth)
{
	char name[256];
	memset(name, 'd', 250);
	name[250] = '\0';
	for (int i = 0; i < depth; i++)
		if (mkdir(name, 0755) < 0 || chdir(name) < 0)
			return 1;
	int fd = open("a", O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	long ok = 0;
	for (long i = 0; i < n; i++)
		if (rename(i & 1 ? "b" : "a", i & 1 ? "a" : "b") == 0)
			ok++;
	printf("%ld\n", ok);
	return ok == n ? 0 : 1;
}

static int do_create(long n)
{
	long ok = 0;
	char p[32];
	for (long i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "f%06ld", i);
		int fd = open(p, O_CREAT | O_WRONLY | O_EXCL, 0644);
		if (fd >= 0) {
			close(fd);
			ok++;
		}
	}
	printf("%ld\n", ok);
	return ok == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "argv"))
		return do_argv(atoi(argv[2]), atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "rename"))
		return do_rename(atol(argv[2]), atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "create"))
		return do_create(atol(argv[2]));
	fprintf(stderr, "usage: mem_hog argv N K | rename N DEPTH | create N\n");
	return 2;
}
