/* Shared bits of the escape corpus attack programs. Each program tries one
 * technique against paths/pids given on its command line (always inside the
 * test's own temp dir or started by the test) and prints what happened. */
#ifndef CAPWATCH_ESC_H
#define CAPWATCH_ESC_H
#include "config.h"
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline long esc_raw6(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

static inline void esc_usage(int argc, int want, const char *usage)
{
	if (argc < want) {
		fprintf(stderr, "usage: %s\n", usage);
		exit(2);
	}
}

/* Append a line to PATH (the effect most attacks aim at). */
static inline int esc_append(const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, line, strlen(line));
	close(fd);
	return n < 0 ? -errno : 0;
}
#endif

#include <sys/stat.h>
#include <time.h>

/* Race helpers: a deadline, and "is this fd the canary?" by identity. */
static inline double esc_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct esc_id {
	dev_t dev;
	ino_t ino;
};

static inline struct esc_id esc_id_of(const char *path)
{
	struct stat st;
	struct esc_id id = { 0, 0 };
	if (stat(path, &st) == 0) {
		id.dev = st.st_dev;
		id.ino = st.st_ino;
	}
	return id;
}

static inline int esc_fd_is(int fd, struct esc_id id)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == id.dev && st.st_ino == id.ino;
}

/* The bare control of a race only has to show that the attack works: under
 * ESC_RACE_FIRST_HIT (set by the tests' bare(), never for the run under
 * capwatch) a race program stops at its first hit instead of spending its
 * whole budget. The run under capwatch always runs the full $CW_RACE_SECONDS. */
static inline int esc_race_done(long hits)
{
	static int first_hit = -1;
	if (first_hit < 0)
		first_hit = getenv("ESC_RACE_FIRST_HIT") != NULL;
	return first_hit && hits > 0;
}

/* The result line every race program prints (the tests parse it). */
static inline void esc_race_result(long attempts, long ok, long hits)
{
	printf("RACE attempts=%ld ok=%ld hits=%ld\n", attempts, ok, hits);
	fflush(stdout);
}
