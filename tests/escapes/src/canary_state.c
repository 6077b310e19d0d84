/* canary_state FILE: one line of what an attack could change about FILE,
 * for tests/escapes/lib.sh's canary checks: the content's SHA-256 (regular
 * files that are no symlink, else empty), size, mode (0o...), owner, group,
 * mtime in ns, link count and the sorted extended attribute names, comma
 * separated; "absent" when FILE does not exist.
 *
 * The corpus compares this line before and after every attack, some tests
 * forty times; a Python interpreter per check cost about a tenth of a second
 * of CPU each (issue 16 item 7). The line is the one the former Python
 * snippet printed, so a saved state and a fresh one compare the same way.
 * Exit 0, or 1 (nothing printed) when FILE cannot be examined. */
#include "config.h"
#include "supervisor/sha256.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The hex digest of a regular file's content into hex; 0 or -errno. */
static int file_digest(const char *path, char hex[65])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	struct cw_sha256 s;
	cw_sha256_init(&s);
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		cw_sha256_update(&s, buf, (size_t)n);
	}
	close(fd);
	cw_sha256_hex(&s, hex);
	return 0;
}

/* The sorted attribute names, comma separated, into out (empty when the
 * file system has none or refuses to list them, as os.listxattr's OSError
 * was taken before). */
static void xattr_names(const char *path, char *out, size_t cap)
{
	static char list[65536];
	static char *names[4096];
	out[0] = '\0';
	ssize_t len = llistxattr(path, list, sizeof(list));
	if (len <= 0)
		return;
	size_t n = 0;
	for (char *p = list; p < list + len && n < sizeof(names) / sizeof(names[0]); p += strlen(p) + 1)
		names[n++] = p;
	qsort(names, n, sizeof(names[0]), cmp_names);
	size_t used = 0;
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(out + used, cap - used, "%s%s", i ? "," : "", names[i]);
		if (w < 0 || (size_t)w >= cap - used)
			return;
		used += (size_t)w;
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: canary_state FILE\n");
		return 2;
	}
	const char *p = argv[1];
	struct stat st;
	if (lstat(p, &st) < 0) {
		if (errno == ENOENT) {
			puts("absent");
			return 0;
		}
		perror(p);
		return 1;
	}
	char hex[65] = "";
	if (S_ISREG(st.st_mode) && file_digest(p, hex) < 0) {
		perror(p);
		return 1;
	}
	static char xa[65536];
	xattr_names(p, xa, sizeof(xa));
	printf("%s %lld 0o%o %u %u %lld %llu %s\n", hex, (long long)st.st_size, (unsigned)st.st_mode,
	       (unsigned)st.st_uid, (unsigned)st.st_gid,
	       (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
	       (unsigned long long)st.st_nlink, xa);
	return 0;
}
