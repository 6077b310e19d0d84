/* E177 (red team 14): the exit event of a thread that an exec ends comes
 * after the exec event. de_thread is woken from the ended thread's
 * release_task (exit_notify); its do_exit sends proc_exit_connector only
 * afterwards, while the exec'ing thread goes on to the exec event. Bare,
 * with one other thread idle in pause(), most execs (46 of 50 here) are
 * reported before that thread's exit. capwatch's on_exec set
 * p->threads = 0, the late exit then took the process for gone
 * (on_exit_event, threads == 0) while its new image ran: its forks were
 * ignored (on_fork: parent entry dead), so were its children's execs
 * (on_exec: no entry, no loss) and check_image never looked at them.
 *   e177_exec_paused_thread PROG ARGS...
 * The leader execs PROG ARGS with one other thread in pause(), after that
 * thread read /proc/thread-self/fd. */
#define _GNU_SOURCE
#include <pthread.h>
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>
static volatile int ready;
/* The thread's /proc/<tid>/fd entries, instantiated by a readdir, make
 * its release_task (proc_flush_pid, after it wakes de_thread) slow:
 * bare, 40 of 40 execs came before its exit event, 0 of 40 without. */
static void *idle(void *a)
{
	(void)a;
	DIR *d = opendir("/proc/thread-self/fd");
	while (d && readdir(d))
		;
	if (!d)
		perror("opendir /proc/thread-self/fd");
	ready = 1;
	for (;;)
		pause();
	return NULL;
}
int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	pthread_t t;
	pthread_create(&t, NULL, idle, NULL);
	while (!ready)
		usleep(100);
	usleep(1000);
	execv(argv[1], argv + 1);
	perror("execv");
	return 127;
}
