#ifndef CAPWATCH_SECRET_IDS_H
#define CAPWATCH_SECRET_IDS_H
/* Secrets by identity (device and inode), for the names the policy cannot
 * see: a hard link made before the run ("ln .env notes.txt" in a
 * checkout) reads as a plain file by its name. capwatch remembers the
 * (dev, ino) of every secret it comes across:
 *
 *  - once per run, a bounded breadth-first scan of the home directory's
 *    secret places (~/.ssh, ~/.aws, ~/.gnupg, and ~/.netrc,
 *    ~/.docker/config.json, ~/.kube/config, ~/.git-credentials) and of
 *    the workspace roots (.git is skipped), recording the regular files
 *    whose names the policy classes as secrets; at most
 *    CW_SECRET_SCAN_ENTRIES directory entries are looked at in all. It
 *    runs when it is first needed: at the first path-changing call
 *    (unlink, rename, link...: the only calls of the tree that change
 *    which inode a name is, so until then the names are as they were at
 *    the start), or at the first emulated read of a file with more than
 *    one name, whichever comes first; a run that does neither never pays
 *    for it;
 *  - every path decided as a secret during the run (an open or a rename
 *    of it, allowed or not), stat'ed then.
 *
 * At most CW_SECRET_IDS_MAX identities are kept; past that, new ones are
 * dropped (and a note says so once). */
#include <stdbool.h>
#include <sys/stat.h>

struct cw_run;

#define CW_SECRET_SCAN_ENTRIES 10000
#define CW_SECRET_IDS_MAX 4096

/* The scan, once per run (later calls return at once): it also makes the
 * module's state, run->secret_ids; the other calls do nothing before it. */
void cw_secret_ids_start(struct cw_run *run);
/* PATH (absolute, resolved) was decided as a secret: remember what it is. */
void cw_secret_ids_note(struct cw_run *run, const char *path);
/* The name of a known secret that ST (a regular file) is, or NULL. A file
 * with more than one name starts the scan first. A file with one name is
 * looked up only when the tree removed another name of a secret that had
 * several: a secret's inode number may be reused once it is gone. */
const char *cw_secret_ids_find(struct cw_run *run, const struct stat *st);
/* The same for a file whose name capwatch cannot trust to say what it
 * is (the kernel back end's read events: a name longer than PATH_MAX, a
 * name removed since the open, kernel.c decide_read): any known secret,
 * whatever its number of links (the scan first). */
const char *cw_secret_ids_find_any(struct cw_run *run, const struct stat *st);
/* The regular file ST, named PATH, holds a private key as the tree opens
 * it to write (fs_open.c): remember that it is a secret for the rest of
 * the run, whatever it holds later. A write may change what the file
 * holds, so that a read decided on its content would no longer see the
 * key; two bytes into its markers leave the key itself to be read (red
 * team e167). Starts the scan. False when it cannot be remembered (the
 * map is full): the caller fails closed. */
bool cw_secret_ids_key_note(struct cw_run *run, const struct stat *st, const char *path);
/* Did the file DEV:INO hold a private key when the tree opened it to
 * write (cw_secret_ids_key_note)? */
bool cw_secret_ids_key_held(struct cw_run *run, dev_t dev, ino_t ino);
/* The tree is about to remove the name PATH (unlink, or a rename over
 * it): a known secret with other names stays one under them; one with no
 * other name is forgotten, but for one that held a private key
 * (cw_secret_ids_key_note), which is kept for the run. */
void cw_secret_ids_unlinking(struct cw_run *run, const char *path);
/* The secret place of a home that PATH (absolute, resolved) is, reached
 * through a symbolic link, or NULL. The policy's home secrets (~/.ssh,
 * ~/.aws, ~/.gnupg, ~/.netrc, ~/.kube/config...) are names below $HOME,
 * /root and /home/X, but every back end decides on the resolved path (the
 * kernel's name under CAPWATCH_KERNEL_READS): a dotfile manager's ~/.aws
 * -> ~/dotfiles/aws, a $HOME reached through a link, /home -> /var/home,
 * or a link in ~/.ssh read as their targets, which are no secrets by name
 * (red team e157). Made once per run by the scan (cw_secret_ids_start),
 * before the command runs: the resolved form of each of those places
 * that differs from its name (another user's home: only to what that
 * user owns). Returns the place's name for PATH (a buffer of the
 * module's, valid until the next call; callers hold the loop's lock). */
const char *cw_secret_ids_linked(struct cw_run *run, const char *path);
/* Free the module's state (run->secret_ids, made by the scan). */
void cw_secret_ids_free(struct cw_run *run);

/* For a rename or link of PATH (absolute, resolved): the name of a home's
 * secret place that PATH is, or is below, or holds, reached through a
 * symbolic link, copied to BUF (N bytes); NULL when none (red team e158:
 * `ln dotfiles/aws/credentials x`, `mv dotfiles/aws/credentials x`). */
const char *cw_secret_ids_linked_moved(struct cw_run *run, const char *path, char *buf, size_t n);
#endif
