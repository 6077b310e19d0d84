/* The preload must not change what a program does. pl_robust runs fork,
 * vfork+execve, threads, a signal handler that calls open(), an exec with
 * LD_PRELOAD removed from the environment, posix_spawn, system and popen,
 * execve and open with pointers into an unmapped page (the kernel answers
 * EFAULT; the preload must not fault first), and prints what it saw. The output must be the same with and without
 * capwatch. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile sig_atomic_t handled;
static volatile int handler_fd = -2;

static void on_alarm(int sig)
{
	(void)sig;
	int fd = open("/dev/null", O_RDONLY);
	handler_fd = fd >= 0 ? 1 : -1;
	if (fd >= 0)
		close(fd);
	handled = 1;
}

static void *worker(void *arg)
{
	long k = (long)arg;
	long ok = 0;
	for (int i = 0; i < 200; i++) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			ok++;
			close(fd);
		}
	}
	return (void *)(ok + k * 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	/* errno is preserved across wrapped calls */
	errno = 0;
	int fd = open("/nonexistent/file", O_RDONLY);
	printf("open missing: %d %s\n", fd, errno == ENOENT ? "ENOENT" : "other");

	/* threads */
	pthread_t t[4];
	long sum = 0;
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("threads: %ld opens\n", sum);

	/* a signal handler calling open() */
	signal(SIGALRM, on_alarm);
	raise(SIGALRM);
	printf("handler: %d %d\n", (int)handled, handler_fd);

	/* fork */
	pid_t p = fork();
	if (p == 0) {
		int f = open("/dev/null", O_WRONLY);
		_exit(f >= 0 ? 7 : 8);
	}
	int st;
	waitpid(p, &st, 0);
	printf("fork child: %d\n", WEXITSTATUS(st));

	/* vfork + execve */
	char *av[] = { "/bin/sh", "-c", "exit 5", NULL };
	p = vfork();
	if (p == 0) {
		execve("/bin/sh", av, environ);
		_exit(127);
	}
	waitpid(p, &st, 0);
	printf("vfork child: %d\n", WEXITSTATUS(st));

	/* an exec with LD_PRELOAD and everything else removed */
	char *empty[] = { NULL };
	char *av2[] = { "/bin/sh", "-c", "echo env-cleared-child ran", NULL };
	p = fork();
	if (p == 0) {
		execve("/bin/sh", av2, empty);
		_exit(127);
	}
	waitpid(p, &st, 0);
	printf("cleared-env child: %d\n", WEXITSTATUS(st));

	/* posix_spawn, system, popen */
	char *av3[] = { "/bin/true", NULL };
	int r = posix_spawn(&p, "/bin/true", NULL, NULL, av3, environ);
	if (r == 0)
		waitpid(p, &st, 0);
	printf("posix_spawn: %d %d\n", r, WEXITSTATUS(st));
	printf("system: %d\n", WEXITSTATUS(system("exit 3")));
	FILE *f = popen("echo popen-out", "r");
	char line[64] = "";
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		pclose(f);
	}
	printf("popen: %s", line);

	/* Bad pointers: an environment string, an environment array running
	 * into a hole, a path in a hole. */
	char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || munmap(m + 4096, 4096) < 0)
		return 2;
	char **env = (char **)(m + 4096 - 16);
	env[0] = "A=1";
	env[1] = m + 4096 + 100;
	errno = 0;
	r = execve("/bin/true", av3, env);
	printf("execve bad env string: %d %s\n", r, errno == EFAULT ? "EFAULT" : strerror(errno));
	char **env2 = (char **)(m + 4096 - 8);
	env2[0] = "B=2";
	errno = 0;
	r = execve("/bin/true", av3, env2);
	printf("execve bad env array: %d %s\n", r, errno == EFAULT ? "EFAULT" : strerror(errno));
	errno = 0;
	r = execve(m + 4096 + 8, av3, environ);
	printf("execve bad path: %d %s\n", r, errno == EFAULT ? "EFAULT" : strerror(errno));
	char *edge = m + 4096 - 4;
	memcpy(edge, "/tmp", 4); /* no NUL before the hole */
	errno = 0;
	fd = open(edge, O_RDONLY);
	printf("open path into a hole: %d %s\n", fd, errno == EFAULT ? "EFAULT" : strerror(errno));
	struct sockaddr_in *bad = (struct sockaddr_in *)(m + 4096 - 4);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	errno = 0;
	r = connect(s, (struct sockaddr *)bad, sizeof(*bad));
	printf("connect address into a hole: %d %s\n", r, errno == EFAULT ? "EFAULT" : strerror(errno));
	return 0;
}
