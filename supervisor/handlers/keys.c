/* Secrets by content: see keys.h. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "supervisor/handlers/keys.h"
#include "policy/path.h"

/* PEM ("-----BEGIN RSA PRIVATE KEY-----", "... EC ...", "... ENCRYPTED
 * ...", "... OPENSSH ...", PKCS#8's plain "PRIVATE KEY") and PuTTY's. */
static const char *const markers[] = { "PRIVATE KEY-----", "PuTTY-User-Key-File-" };
#define OVERLAP 32 /* longer than any marker */

int cw_keys_scan_fd(int fd, size_t max)
{
	char buf[16384 + OVERLAP];
	size_t keep = 0;
	off_t off = 0;
	while ((size_t)off < max) {
		size_t want = sizeof(buf) - keep;
		if (want > max - (size_t)off)
			want = max - (size_t)off;
		ssize_t r = pread(fd, buf + keep, want, off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		size_t len = keep + (size_t)r;
		for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++)
			if (memmem(buf, len, markers[i], strlen(markers[i])))
				return 1;
		off += r;
		keep = len < OVERLAP ? len : OVERLAP;
		memmove(buf, buf + len - keep, keep);
	}
	return 0;
}

#define KEYS_FREE_MAX (4u << 20)

bool cw_keys_free(const char *path, dev_t *dev, ino_t *ino)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd < 0)
		return false;
	struct stat st;
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (off_t)KEYS_FREE_MAX &&
		  cw_keys_scan_fd(fd, KEYS_FREE_MAX) == 0;
	close(fd);
	if (ok) {
		*dev = st.st_dev;
		*ino = st.st_ino;
	}
	return ok;
}

bool cw_keys_worth_scanning(const char *path, off_t size)
{
	if (size < 64 || !path || path[0] != '/')
		return false;
	if (cw_path_is_under(path, "/usr/local"))
		return true; /* the administrator's, not a package's */
	static const char *const packaged[] = { "/usr", "/lib", "/lib64", "/bin", "/sbin", "/proc", "/sys" };
	for (size_t i = 0; i < sizeof packaged / sizeof packaged[0]; i++)
		if (cw_path_is_under(path, packaged[i]))
			return false;
	return true;
}

size_t cw_keys_scan_size(off_t size)
{
	/* The whole file up to 64 KiB (a key may follow anything), the
	 * first 64 KiB of a bigger one: at most one 64 KiB read an open. */
	return size <= (off_t)(64u << 10) ? (size_t)size : (size_t)(64u << 10);
}
