/* Unit tests of the file family (handlers/fs*.c) with this test process
 * as the target: a fake notification whose arguments point into our own
 * memory (read back with process_vm_readv, as from any target), the
 * decision taken by the real policy with the built-in "verify" profile
 * and a temporary workspace, the operation performed by the handler on
 * the real file system. The event flow of notify.c (decide, deny, record)
 * and the answers are stubbed and recorded (handler_stubs.h): a test sees
 * what the handler decided and answered, the descriptor it installed (a
 * duplicate kept by the stub), the changes noted, and checks the effect
 * on disk.
 *
 * "verify" allows reads anywhere but secrets, and writes inside the
 * workspace only: a write anywhere else is `unrestricted`, denied. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#define HANDLER_STUBS_NO_TRACKER /* the tree is this process alone, below */
#include "handler_stubs.h"
#include "supervisor/changes.h"
#include "supervisor/secret_ids.h"

/* ---- the rest of the supervisor around the file family, stubbed ---- */

static struct {
	int n;                   /* cw_changes_add calls */
	enum cw_change_kind kind;
	char path[PATH_MAX];
} changes;

static void changes_reset(void)
{
	memset(&changes, 0, sizeof(changes));
}

void cw_changes_add(struct cw_run *r, enum cw_change_kind kind, const char *path, const char *path2)
{
	(void)r;
	(void)path2;
	changes.n++;
	changes.kind = kind;
	snprintf(changes.path, sizeof(changes.path), "%s", path);
}

/* The tree is this process alone. */
bool cw_tracker_in_tree(const struct cw_run *r, pid_t pid)
{
	(void)r;
	return pid == getpid();
}

bool cw_task_in_tree(const struct cw_notif *n, pid_t pid)
{
	(void)n;
	return pid == getpid() || pid == (pid_t)syscall(SYS_gettid);
}

/* No secrets known by identity: only names are secrets here. */
void cw_secret_ids_start(struct cw_run *r)
{
	(void)r;
}

void cw_secret_ids_note(struct cw_run *r, const char *path)
{
	(void)r;
	(void)path;
}

/* No home secret reached through a link here. */
const char *cw_secret_ids_linked(struct cw_run *r, const char *path)
{
	(void)r;
	(void)path;
	return NULL;
}
const char *cw_secret_ids_linked_moved(struct cw_run *r, const char *path, char *buf, size_t n)
{
	(void)r;
	(void)path;
	(void)buf;
	(void)n;
	return NULL;
}

const char *cw_secret_ids_find(struct cw_run *r, const struct stat *st)
{
	(void)r;
	(void)st;
	return NULL;
}
bool cw_secret_ids_key_note(struct cw_run *r, const struct stat *st, const char *path)
{
	(void)r;
	(void)st;
	(void)path;
	return true;
}
bool cw_secret_ids_key_held(struct cw_run *r, dev_t dev, ino_t ino)
{
	(void)r;
	(void)dev;
	(void)ino;
	return false;
}
const char *cw_secret_ids_find_any(struct cw_run *r, const struct stat *st)
{
	(void)r;
	(void)st;
	return NULL;
}

void cw_secret_ids_unlinking(struct cw_run *r, const char *path)
{
	(void)r;
	(void)path;
}

/* ---- the run: "verify", the workspace (dir) and a directory outside it ---- */

static char out[PATH_MAX];  /* a directory outside the workspace */

static int setup(void **state)
{
	(void)state;
	char t[] = "/tmp/cw-fs-out-XXXXXX";
	if (fake_run("verify") < 0 || !mkdtemp(t) || !realpath(t, out))
		return -1;
	umask(022);
	seen_more_reset = changes_reset;
	if (cw_fs_init(&run) < 0)
		return -1;
	fs_scratch = cw_fs_scratch_of(&run);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	cw_fs_free(&run);
	fake_run_free();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", out);
	return system(cmd) == 0 && fake_run_remove_dir() == 0 ? 0 : -1;
}

static void make_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* ---- opens ---- */

/* A read of a workspace file, by a relative name (the lexical shortcut)
 * and by an absolute one: allowed, performed by capwatch, and the
 * descriptor installed reads the file. */
static void test_open_read_workspace(void **state)
{
	(void)state;
	char abs[PATH_MAX + 16], buf[32];
	make_file("hello.txt", "hello, world", 0644);

	dispatch(cw_handle_open, notify(__NR_openat, "openat", (uint64_t)AT_FDCWD, ptr("hello.txt"), O_RDONLY, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_FD);
	assert_int_equal(seen.nrecorded, 1);
	assert_int_equal(seen.ev.op.kind, CW_OP_OPEN_READ);
	assert_int_equal(seen.ev.d.verdict, CW_ALLOW);
	assert_int_equal(seen.ev.d.cap, CW_CAP_FILESYSTEM_READ);
	assert_true(seen.ev.verified); /* performed by capwatch, not continued */
	snprintf(abs, sizeof(abs), "%s/hello.txt", dir);
	assert_string_equal(seen.path, abs);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(pread(seen.fd, buf, sizeof(buf) - 1, 0), 12);
	assert_string_equal(buf, "hello, world");
	assert_int_equal(fcntl(seen.fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	assert_false(seen.cloexec);
	assert_int_equal(changes.n, 0);

	dispatch(cw_handle_open, notify(__NR_open, "open", ptr(abs), O_RDONLY | O_CLOEXEC, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_FD);
	assert_true(seen.cloexec);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(pread(seen.fd, buf, 5, 0), 5);
	assert_string_equal(buf, "hello");

	/* A name that does not exist: the kernel's ENOENT, performed. */
	dispatch(cw_handle_open, notify(__NR_openat, "openat", (uint64_t)AT_FDCWD, ptr("nothing-here"), O_RDONLY, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, ENOENT);
}

/* A write open in the workspace creates the file (on disk, with the
 * target's umask applied) and installs a descriptor that writes it:
 * workspace_write, and the change is noted before it happens. */
static void test_open_write_creates_in_workspace(void **state)
{
	(void)state;
	char abs[PATH_MAX + 16], buf[16];
	snprintf(abs, sizeof(abs), "%s/made.txt", dir);
	assert_false(exists(abs));

	dispatch(cw_handle_open, notify(__NR_openat, "openat", (uint64_t)AT_FDCWD, ptr("made.txt"),
			      O_WRONLY | O_CREAT | O_TRUNC, 0666, 0, 0));
	assert_int_equal(seen.kind, ANS_FD);
	assert_int_equal(seen.ev.op.kind, CW_OP_OPEN_WRITE);
	assert_int_equal(seen.ev.d.verdict, CW_ALLOW);
	assert_int_equal(seen.ev.d.cap, CW_CAP_WORKSPACE_WRITE);
	assert_true(seen.ev.verified);
	assert_string_equal(seen.path, abs);
	assert_true(exists(abs));
	assert_int_equal(mode_of(abs), 0644); /* 0666 less umask 022 */
	assert_int_equal(changes.n, 1);
	assert_int_equal(changes.kind, CW_CHANGE_WRITE);
	assert_string_equal(changes.path, abs);
	assert_int_equal(write(seen.fd, "data", 4), 4);
	int fd = open(abs, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(read(fd, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "data");
	close(fd);

	/* creat(2) of the same name truncates it. */
	dispatch(cw_handle_open, notify(__NR_creat, "creat", ptr(abs), 0600, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_FD);
	struct stat st;
	assert_int_equal(stat(abs, &st), 0);
	assert_int_equal(st.st_size, 0);
}

/* A write outside the workspace is `unrestricted`, denied with the
 * decision's errno, and nothing is created; so is one that reaches
 * outside through a symlink in the workspace. */
static void test_open_write_outside_denied(void **state)
{
	(void)state;
	char target[PATH_MAX + 16];
	snprintf(target, sizeof(target), "%s/escaped.txt", out);

	dispatch(cw_handle_open, notify(__NR_open, "open", ptr(target), O_WRONLY | O_CREAT, 0644, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.nrecorded, 1);
	assert_int_equal(seen.ev.d.verdict, CW_DENY);
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	assert_true(seen.ev.d.err > 0);
	assert_int_equal(seen.err, seen.ev.d.err);
	assert_int_equal(seen.ev.err, seen.err);
	assert_false(exists(target));
	assert_int_equal(changes.n, 0);

	assert_int_equal(symlink(target, "to-outside"), 0);
	dispatch(cw_handle_open, notify(__NR_openat, "openat", (uint64_t)AT_FDCWD, ptr("to-outside"), O_WRONLY | O_CREAT,
			      0644, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	assert_string_equal(seen.path, target); /* decided where the link leads */
	assert_false(exists(target));
}

/* O_TRUNC waits for the check of other names: a workspace file that a
 * hard link made before the run (here: by the test, not through
 * capwatch) also names outside is a write outside, denied, and is not
 * emptied; one with a single name is truncated, and O_RDONLY|O_TRUNC
 * installs a read-only descriptor of the emptied file. */
static void test_trunc_after_alias_check(void **state)
{
	(void)state;
	char outside[PATH_MAX + 16];
	struct stat st;
	snprintf(outside, sizeof(outside), "%s/also-here", out);
	make_file("linked", "keep me", 0644);
	assert_int_equal(link("linked", outside), 0);
	dispatch(cw_handle_open, notify(__NR_openat, "openat", (uint64_t)AT_FDCWD, ptr("linked"), O_WRONLY | O_TRUNC, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_string_equal(seen.ev.op.alias, "hard link");
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	assert_int_equal(stat("linked", &st), 0);
	assert_int_equal(st.st_size, 7);

	make_file("single", "cut me", 0644);
	dispatch(cw_handle_open, notify(__NR_openat, "openat", (uint64_t)AT_FDCWD, ptr("single"), O_RDONLY | O_TRUNC, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_FD);
	assert_int_equal(seen.ev.d.cap, CW_CAP_WORKSPACE_WRITE);
	assert_int_equal(stat("single", &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(fcntl(seen.fd, F_GETFL) & O_ACCMODE, O_RDONLY);
}

/* What an open does to the file waits for its descriptor to be
 * installed (e144: a full table fails the call first, bare): O_TRUNC cuts
 * once it is installed, and a file the open made is marked to be removed
 * if it cannot be (notify.c send_fd_acting; e144 runs the EMFILE case). */
static void test_open_effects_wait_for_install(void **state)
{
	(void)state;
	struct stat st;
	make_file("full", "keep me", 0644);
	dispatch(cw_handle_open, notify(__NR_openat, "openat", (uint64_t)AT_FDCWD, ptr("full"), O_WRONLY | O_TRUNC, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_FD);
	assert_true(seen.trunc_after); /* cut by the install (here: settle) */
	assert_false(seen.undo_create);
	assert_int_equal(stat("full", &st), 0);
	assert_int_equal(st.st_size, 0);

	assert_int_equal(stat("fresh", &st), -1);
	dispatch(cw_handle_open, notify(__NR_openat, "openat", (uint64_t)AT_FDCWD, ptr("fresh"),
				       O_WRONLY | O_CREAT | O_TRUNC, 0644, 0, 0));
	assert_int_equal(seen.kind, ANS_FD);
	assert_true(seen.undo_create);
	assert_false(seen.trunc_after); /* nothing to cut in what it made */

	/* There already: nothing of it is undone. */
	dispatch(cw_handle_open, notify(__NR_openat, "openat", (uint64_t)AT_FDCWD, ptr("fresh"), O_WRONLY | O_CREAT, 0644, 0, 0));
	assert_int_equal(seen.kind, ANS_FD);
	assert_false(seen.undo_create);
}

/* A secret by its name (.env) is denied for reading, in the workspace
 * too, and nothing is installed. */
static void test_secret_read_denied(void **state)
{
	(void)state;
	make_file(".env", "TOKEN=hunter2\n", 0600);
	dispatch(cw_handle_open, notify(__NR_openat, "openat", (uint64_t)AT_FDCWD, ptr(".env"), O_RDONLY, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.nrecorded, 1);
	assert_int_equal(seen.ev.op.kind, CW_OP_OPEN_READ);
	assert_int_equal(seen.ev.d.verdict, CW_DENY);
	assert_true(seen.ev.d.secret);
	assert_int_equal(seen.err, seen.ev.d.err);
	assert_int_equal(seen.fd, -1);
}

/* A path argument the kernel could not read: answered with its EFAULT,
 * nothing decided, recorded or done. At a page's end without its NUL,
 * at an unmapped page, and NULL. */
static void test_unreadable_path(void **state)
{
	(void)state;
	long pg = sysconf(_SC_PAGESIZE);
	char *two = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(two != MAP_FAILED);
	assert_int_equal(munmap(two + pg, (size_t)pg), 0); /* a guard page after the first */
	char *end = two + pg - 4;
	memcpy(end, "abcd", 4); /* no NUL before the guard page */

	dispatch(cw_handle_open, notify(__NR_openat, "openat", (uint64_t)AT_FDCWD, ptr(end), O_RDONLY, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EFAULT);
	assert_int_equal(seen.nrecorded, 0);
	dispatch(cw_handle_open, notify(__NR_open, "open", ptr(two + pg), O_WRONLY | O_CREAT, 0644, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EFAULT);
	dispatch(cw_handle_open, notify(__NR_open, "open", 0, O_RDONLY, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EFAULT);
	dispatch(cw_handle_fs, notify(__NR_unlink, "unlink", ptr(two + pg), 0, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EFAULT);
	assert_int_equal(seen.nrecorded, 0);
	/* rename: the second path unreadable, the first a real file */
	make_file("stays", "x", 0644);
	dispatch(cw_handle_fs, notify(__NR_rename, "rename", ptr("stays"), ptr(end), 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EFAULT);
	assert_true(exists("stays"));
	dispatch(cw_handle_fs, notify(__NR_chmod, "chmod", 0, 0600, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EFAULT);
	/* openat2's struct at an unmapped page */
	dispatch(cw_handle_open, notify(__NR_openat2, "openat2", (uint64_t)AT_FDCWD, ptr("stays"), ptr(two + pg), 24, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EFAULT);
	assert_int_equal(seen.nrecorded, 0);
	munmap(two, (size_t)pg);
}

/* ---- path calls ---- */

static void test_unlink_inside_and_outside(void **state)
{
	(void)state;
	char victim[PATH_MAX + 16];
	make_file("gone", "x", 0644);
	dispatch(cw_handle_fs, notify(__NR_unlink, "unlink", ptr("gone"), 0, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_int_equal(seen.val, 0);
	assert_int_equal(seen.ev.d.verdict, CW_ALLOW);
	assert_int_equal(seen.ev.d.cap, CW_CAP_WORKSPACE_WRITE);
	assert_true(seen.ev.verified);
	assert_false(exists("gone"));
	assert_int_equal(changes.kind, CW_CHANGE_DELETE);

	snprintf(victim, sizeof(victim), "%s/victim", out);
	make_file(victim, "x", 0644);
	dispatch(cw_handle_fs, notify(__NR_unlinkat, "unlinkat", (uint64_t)AT_FDCWD, ptr(victim), 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.ev.d.verdict, CW_DENY);
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	assert_int_equal(seen.err, seen.ev.d.err);
	assert_true(exists(victim));

	/* A missing name: the kernel's ENOENT; outside the workspace with
	 * no denial recorded (`rm -f nofile` is no attempt to write there). */
	dispatch(cw_handle_fs, notify(__NR_unlink, "unlink", ptr("never-was"), 0, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, ENOENT);
	assert_int_equal(seen.ev.err, ENOENT);
	snprintf(victim, sizeof(victim), "%s/never-was", out);
	dispatch(cw_handle_fs, notify(__NR_unlink, "unlink", ptr(victim), 0, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, ENOENT);
	assert_int_equal(seen.nrecorded, 0);
	/* A directory: rmdir removes it; unlink of "." is the kernel's EISDIR. */
	assert_int_equal(mkdir("d", 0755), 0);
	dispatch(cw_handle_fs, notify(__NR_unlink, "unlink", ptr("d/."), 0, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EISDIR);
	assert_true(exists("d"));
	dispatch(cw_handle_fs, notify(__NR_rmdir, "rmdir", ptr("d"), 0, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_false(exists("d"));
}

static void test_rename_inside_and_outside(void **state)
{
	(void)state;
	char there[PATH_MAX + 16], from_out[PATH_MAX + 16], abs[PATH_MAX + 16];
	make_file("r1", "one", 0644);
	dispatch(cw_handle_fs, notify(__NR_renameat2, "renameat2", (uint64_t)AT_FDCWD, ptr("r1"), (uint64_t)AT_FDCWD,
			    ptr("r2"), 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_int_equal(seen.val, 0);
	assert_int_equal(seen.ev.op.kind, CW_OP_RENAME);
	assert_int_equal(seen.ev.d.verdict, CW_ALLOW);
	assert_int_equal(seen.ev.d.cap, CW_CAP_WORKSPACE_WRITE);
	snprintf(abs, sizeof(abs), "%s/r2", dir);
	assert_string_equal(seen.path2, abs);
	assert_false(exists("r1"));
	assert_true(exists("r2"));
	assert_int_equal(changes.kind, CW_CHANGE_RENAME);

	/* Out of the workspace: denied, the file stays where it was. */
	snprintf(there, sizeof(there), "%s/r2", out);
	dispatch(cw_handle_fs, notify(__NR_rename, "rename", ptr("r2"), ptr(there), 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.ev.d.verdict, CW_DENY);
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	assert_int_equal(seen.err, seen.ev.d.err);
	assert_true(exists("r2"));
	assert_false(exists(there));

	/* Into it from outside: the source's removal is a write outside. */
	snprintf(from_out, sizeof(from_out), "%s/foreign", out);
	make_file(from_out, "x", 0644);
	dispatch(cw_handle_fs, notify(__NR_rename, "rename", ptr(from_out), ptr("foreign"), 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	assert_true(exists(from_out));
	assert_false(exists("foreign"));

	/* rename onto "..": the kernel's EBUSY, nothing moved. */
	dispatch(cw_handle_fs, notify(__NR_rename, "rename", ptr("r2"), ptr(".."), 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EBUSY);
	assert_true(exists("r2"));
}

/* ---- metadata ---- */

/* chmod in the workspace is performed (the mode on disk changes), outside
 * it is denied (the mode stays); the setuid bit is a privilege for later,
 * `unrestricted` wherever the file is. */
static void test_chmod_inside_and_outside(void **state)
{
	(void)state;
	char theirs[PATH_MAX + 16];
	make_file("m", "x", 0600);
	dispatch(cw_handle_fs, notify(__NR_chmod, "chmod", ptr("m"), 0640, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_int_equal(seen.val, 0);
	assert_int_equal(seen.ev.d.verdict, CW_ALLOW);
	assert_int_equal(seen.ev.d.cap, CW_CAP_WORKSPACE_WRITE);
	assert_true(seen.ev.verified);
	assert_int_equal(mode_of("m"), 0640);

	dispatch(cw_handle_fs, notify(__NR_fchmodat, "fchmodat", (uint64_t)AT_FDCWD, ptr("m"), 04755, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.ev.op.kind, CW_OP_ESCAPE_SYSCALL);
	assert_string_equal(seen.ev.op.syscall, "setuid bit");
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	assert_int_equal(mode_of("m"), 0640);

	snprintf(theirs, sizeof(theirs), "%s/theirs", out);
	make_file(theirs, "x", 0600);
	dispatch(cw_handle_fs, notify(__NR_chmod, "chmod", ptr(theirs), 0666, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.ev.d.verdict, CW_DENY);
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	assert_int_equal(seen.err, seen.ev.d.err);
	assert_int_equal(mode_of(theirs), 0600);
}

/* fchmod of a descriptor: decided on the path of capwatch's duplicate of
 * it, performed on that duplicate. */
static void test_fchmod_through_descriptor(void **state)
{
	(void)state;
	char theirs[PATH_MAX + 16];
	need_getfd();
	make_file("f", "x", 0600);
	int fd = open("f", O_RDONLY | O_CLOEXEC); /* ownership suffices: read-only is enough */
	assert_true(fd >= 0);
	dispatch(cw_handle_fs, notify(__NR_fchmod, "fchmod", (uint64_t)fd, 0604, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_int_equal(seen.ev.d.cap, CW_CAP_WORKSPACE_WRITE);
	assert_true(seen.ev.verified);
	assert_int_equal(mode_of("f"), 0604);
	close(fd);

	snprintf(theirs, sizeof(theirs), "%s/fd-theirs", out);
	make_file(theirs, "x", 0600);
	fd = open(theirs, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	dispatch(cw_handle_fs, notify(__NR_fchmod, "fchmod", (uint64_t)fd, 0666, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	assert_string_equal(seen.path, theirs);
	assert_int_equal(mode_of(theirs), 0600);
	close(fd);

	/* A descriptor the target does not have: EBADF, nothing decided. */
	dispatch(cw_handle_fs, notify(__NR_fchmod, "fchmod", 999, 0666, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EBADF);
	assert_int_equal(seen.nrecorded, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_read_workspace),
		cmocka_unit_test(test_open_write_creates_in_workspace),
		cmocka_unit_test(test_open_write_outside_denied),
		cmocka_unit_test(test_trunc_after_alias_check),
		cmocka_unit_test(test_open_effects_wait_for_install),
		cmocka_unit_test(test_secret_read_denied),
		cmocka_unit_test(test_unreadable_path),
		cmocka_unit_test(test_unlink_inside_and_outside),
		cmocka_unit_test(test_rename_inside_and_outside),
		cmocka_unit_test(test_chmod_inside_and_outside),
		cmocka_unit_test(test_fchmod_through_descriptor),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
