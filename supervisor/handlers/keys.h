#ifndef CAPWATCH_KEYS_H
#define CAPWATCH_KEYS_H
/* Secrets by content (contract section 2): a file holding a private key
 * block is a secret whatever its name, and a certificate-only .pem is not.
 * capwatch reads what it opens for the command anyway (it performs the
 * open), so it can look. */
#include <stdbool.h>
#include <sys/types.h>

/* Does the open regular file FD hold a private key block in its first MAX
 * bytes? 1 yes, 0 no, -errno when it could not be read. */
int cw_keys_scan_fd(int fd, size_t max);

/* A .pem or .key name about to be read: open PATH (no symlinks, as the
 * emulation will), and when it is a regular file of at most 4 MiB holding
 * no private key block, return true with its device and inode (the open
 * that follows must find the same file). False: keep it a secret. */
bool cw_keys_free(const char *path, dev_t *dev, ino_t *ino);

/* Worth a look for a key under any name: a regular file of 64 bytes or
 * more outside the package-managed trees (/usr/local is looked at). */
bool cw_keys_worth_scanning(const char *path, off_t size);

/* How much of a file of SIZE bytes is looked at: all of it up to 64 KiB,
 * else its first 64 KiB. */
size_t cw_keys_scan_size(off_t size);

#endif
