/* Races against the network calls capwatch performs itself (kernel-notes
 * K20): a second thread rewrites what the call names while the call waits
 * for the supervisor.
 *
 *   sendto  SECONDS EVIL PORT  the sendto() sockaddr flips between
 *                              127.0.0.1:PORT and EVIL:PORT (UDP)
 *   sendmsg SECONDS EVIL PORT  sendmsg()'s msg_name pointer flips between
 *                              the two (double indirection)
 *   sendmmsg SECONDS EVIL PORT one sendmmsg() message's msg_name flips
 *   sendmsgnull SECONDS EVIL PORT  msg_name flips between NULL (no
 *                              address: "a connected socket") and EVIL
 *   unix SECONDS GOOD EVIL     connect()'s sun_path flips between two
 *                              socket paths
 *   unixlink SECONDS LINK GOOD EVIL  connect(LINK) while LINK is renamed
 *                              between symlinks to GOOD and to EVIL
 *   listen SECONDS             listen(F) while F is dup2'd between a
 *                              socket bound to 127.0.0.1 and an unbound
 *                              one (listen autobinds it to 0.0.0.0)
 *
 * Datagrams that reach EVIL are counted by the test's sink; connects that
 * reach EVIL (getpeername) and listens that land on the unbound socket
 * (SO_ACCEPTCONN) are counted here. Inside a private netns only. */
#include "esc.h"
#include <arpa/inet.h>
#include <stdbool.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>

static volatile int stop;
static const char *mode;

/* sendto / sendmsg / sendmmsg */
static struct sockaddr_in addr, good, evil;
static struct msghdr mh;
static struct mmsghdr mm[2];

/* unix */
static struct sockaddr_un uaddr, ugood, uevil;
static const char *link_path, *good_path, *evil_path;

/* listen */
enum { FD_A = 100, FD_B = 101, FD_F = 102 };

/* Each state is held for a moment: a pointer store alone leaves the
 * other value in place for one instruction, too short to show. */
static void hold(void)
{
	for (volatile int i = 0; i < 200; i++)
		;
}

static void *flip(void *arg)
{
	(void)arg;
	char tmp_good[4200], tmp_evil[4200];
	if (link_path) {
		snprintf(tmp_good, sizeof(tmp_good), "%s.g", link_path);
		snprintf(tmp_evil, sizeof(tmp_evil), "%s.e", link_path);
	}
	while (!stop) {
		if (strcmp(mode, "sendto") == 0) {
			memcpy(&addr, &evil, sizeof(addr));
			__asm__ volatile("" ::: "memory");
			hold();
			memcpy(&addr, &good, sizeof(addr));
		} else if (strcmp(mode, "sendmsg") == 0) {
			mh.msg_name = &evil;
			__asm__ volatile("" ::: "memory");
			hold();
			mh.msg_name = &good;
		} else if (strcmp(mode, "sendmsgnull") == 0) {
			mh.msg_name = &evil;
			__asm__ volatile("" ::: "memory");
			hold();
			mh.msg_name = NULL;
		} else if (strcmp(mode, "sendmmsg") == 0) {
			mm[1].msg_hdr.msg_name = &evil;
			__asm__ volatile("" ::: "memory");
			hold();
			mm[1].msg_hdr.msg_name = &good;
		} else if (strcmp(mode, "unix") == 0) {
			memcpy(&uaddr, &uevil, sizeof(uaddr));
			__asm__ volatile("" ::: "memory");
			hold();
			memcpy(&uaddr, &ugood, sizeof(uaddr));
		} else if (strcmp(mode, "unixlink") == 0) {
			unlink(tmp_evil);
			if (symlink(evil_path, tmp_evil) == 0)
				rename(tmp_evil, link_path);
			unlink(tmp_good);
			if (symlink(good_path, tmp_good) == 0)
				rename(tmp_good, link_path);
		} else if (strcmp(mode, "listen") == 0) {
			dup2(FD_B, FD_F);
			__asm__ volatile("" ::: "memory");
			hold();
			dup2(FD_A, FD_F);
		}
		__asm__ volatile("" ::: "memory");
			hold();
	}
	return NULL;
}

static void set_un(struct sockaddr_un *u, const char *p)
{
	memset(u, 0, sizeof(*u));
	u->sun_family = AF_UNIX;
	snprintf(u->sun_path, sizeof(u->sun_path), "%s", p);
}

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e09e_net_flip MODE SECONDS [ARGS...]");
	mode = argv[1];
	double end = esc_now() + atof(argv[2]);
	bool inet = strncmp(mode, "send", 4) == 0;
	int s = -1;
	if (inet) {
		esc_usage(argc, 5, "e09e_net_flip send* SECONDS EVIL PORT");
		good.sin_family = evil.sin_family = AF_INET;
		good.sin_port = evil.sin_port = htons((uint16_t)atoi(argv[4]));
		inet_pton(AF_INET, "127.0.0.1", &good.sin_addr);
		inet_pton(AF_INET, argv[3], &evil.sin_addr);
		addr = good;
		s = socket(AF_INET, SOCK_DGRAM, 0);
	} else if (strcmp(mode, "unix") == 0) {
		esc_usage(argc, 5, "e09e_net_flip unix SECONDS GOOD EVIL");
		good_path = argv[3];
		evil_path = argv[4];
		set_un(&ugood, good_path);
		set_un(&uevil, evil_path);
		uaddr = ugood;
	} else if (strcmp(mode, "unixlink") == 0) {
		esc_usage(argc, 6, "e09e_net_flip unixlink SECONDS LINK GOOD EVIL");
		link_path = argv[3];
		good_path = argv[4];
		evil_path = argv[5];
		set_un(&uaddr, link_path);
	} else if (strcmp(mode, "listen") == 0) {
		struct sockaddr_in lo = { .sin_family = AF_INET };
		inet_pton(AF_INET, "127.0.0.1", &lo.sin_addr);
		int a = socket(AF_INET, SOCK_STREAM, 0);
		if (a < 0 || bind(a, (struct sockaddr *)&lo, sizeof(lo)) < 0) {
			perror("bind 127.0.0.1");
			return 2;
		}
		dup2(a, FD_A);
		dup2(a, FD_F);
		close(a);
		int b = socket(AF_INET, SOCK_STREAM, 0);
		dup2(b, FD_B);
		close(b);
	} else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	struct iovec iov = { (void *)"e09e\n", 5 };
	mh.msg_name = &good;
	mh.msg_namelen = sizeof(good);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	for (int i = 0; i < 2; i++) {
		mm[i].msg_hdr = mh;
	}
	if (strcmp(mode, "sendmsgnull") == 0) {
		/* Connected to the loopback side: "no address" sends go there. */
		connect(s, (struct sockaddr *)&good, sizeof(good));
		mh.msg_name = NULL;
	}

	pthread_t t;
	pthread_create(&t, NULL, flip, NULL);
	long attempts = 0, ok = 0, hits = 0;
	while (esc_now() < end && !esc_race_done(hits)) {
		attempts++;
		if (strcmp(mode, "sendto") == 0) {
			if (sendto(s, "e09e\n", 5, 0, (struct sockaddr *)&addr, sizeof(addr)) == 5)
				ok++;
		} else if (strcmp(mode, "sendmsg") == 0 || strcmp(mode, "sendmsgnull") == 0) {
			if (sendmsg(s, &mh, 0) == 5)
				ok++;
		} else if (strcmp(mode, "sendmmsg") == 0) {
			if (sendmmsg(s, mm, 2, 0) == 2)
				ok++;
		} else if (strcmp(mode, "unix") == 0 || strcmp(mode, "unixlink") == 0) {
			int c = socket(AF_UNIX, SOCK_STREAM, 0);
			if (c < 0)
				break;
			if (connect(c, (struct sockaddr *)&uaddr, sizeof(uaddr)) == 0) {
				struct sockaddr_un peer;
				socklen_t len = sizeof(peer);
				ok++;
				if (getpeername(c, (struct sockaddr *)&peer, &len) == 0 &&
				    len > offsetof(struct sockaddr_un, sun_path) &&
				    strstr(peer.sun_path, "evil")) {
					hits++;
					if (write(c, "e09e\n", 5) < 0)
						perror("write");
				}
			}
			close(c);
		} else {
			if (listen(FD_F, 4) == 0)
				ok++;
			int on = 0;
			socklen_t l = sizeof(on);
			if (getsockopt(FD_B, SOL_SOCKET, SO_ACCEPTCONN, &on, &l) == 0 && on) {
				hits++;
				/* a fresh unbound socket for the next round */
				int b = socket(AF_INET, SOCK_STREAM, 0);
				dup2(b, FD_B);
				close(b);
			}
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	esc_race_result(attempts, ok, hits);
	return 0;
}
