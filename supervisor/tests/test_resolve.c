/* Unit tests of resolve.c: path resolution "in the target's context", with
 * this test process as the target (its cwd, its descriptors, its memory). */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <cmocka.h>
#include "supervisor/resolve.h"

static char root[PATH_MAX]; /* realpath of the temp dir */
/* The merged-/usr links, read once as for a run. */
static struct cw_resolve_links *links;

static void resolves(int dirfd, const char *path, int flags, const char *want_rel)
{
	struct cw_resolved r;
	char want[PATH_MAX * 2];
	int e = cw_resolve_path(links, getpid(), getpid(), dirfd, path, flags, &r);
	if (e != 0)
		fail_msg("%s: error %s", path, strerror(-e));
	if (want_rel[0] == '/')
		snprintf(want, sizeof(want), "%s", want_rel);
	else
		snprintf(want, sizeof(want), "%s/%s", root, want_rel);
	if (strcmp(r.path, want) != 0)
		fail_msg("%s: got %s, want %s", path, r.path, want);
}

static int setup(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/cw-resolve-XXXXXX";
	if (cw_resolve_links_new(&links) < 0)
		return -1;
	if (!mkdtemp(tmpl) || !realpath(tmpl, root) || chdir(root) < 0)
		return -1;
	/* ws/real/file, ws/link -> real, ws/abs -> /etc, ws/up -> .., dangling -> nothere/new,
	 * dangling2 -> real/new */
	if (mkdir("ws", 0755) || mkdir("ws/real", 0755) || mkdir("ws/real/sub", 0755))
		return -1;
	int fd = open("ws/real/file", O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	if (symlink("real", "ws/link") || symlink("/etc", "ws/abs") || symlink("..", "ws/real/sub/up") ||
	    symlink("nothere/new", "ws/dangling") || symlink("real/new", "ws/dangling2") ||
	    symlink("loop2", "ws/loop1") || symlink("loop1", "ws/loop2"))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	cw_resolve_links_free(links);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* PATH fails as the kernel's walk fails for it: the errno of open(2)
 * here, which must be WANT, and the same from the resolver. */
static void fails(int dirfd, const char *path, int flags, int want)
{
	struct cw_resolved r;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0)
		close(fd);
	if (fd >= 0 || errno != want)
		fail_msg("%s: the kernel says %s, not %s", path, fd >= 0 ? "opened" : strerror(errno),
			 strerror(want));
	int e = cw_resolve_path(links, getpid(), getpid(), dirfd, path, flags, &r);
	if (e != -want)
		fail_msg("%s: %s (%s), want %s", path, e ? strerror(-e) : "resolved", e ? "" : r.path,
			 strerror(want));
}

static void test_plain_and_dots(void **state)
{
	(void)state;
	resolves(AT_FDCWD, "ws/real/file", 0, "ws/real/file");
	resolves(AT_FDCWD, "./ws//real/./file", 0, "ws/real/file");
	resolves(AT_FDCWD, "ws/real/../real/file", 0, "ws/real/file");
	resolves(AT_FDCWD, "/", 0, "/");
	resolves(AT_FDCWD, "/..", 0, "/");
}

static void test_symlinks(void **state)
{
	(void)state;
	resolves(AT_FDCWD, "ws/link/file", 0, "ws/real/file");
	resolves(AT_FDCWD, "ws/abs/hostname", 0, "/etc/hostname");
	/* ".." after a symlink is taken from where the link led. */
	resolves(AT_FDCWD, "ws/real/sub/up/file", 0, "ws/real/file");
	resolves(AT_FDCWD, "ws/link/sub/../file", 0, "ws/real/file");
	/* The last component: followed, unless NOFOLLOW. */
	resolves(AT_FDCWD, "ws/link", 0, "ws/real");
	resolves(AT_FDCWD, "ws/link", CW_RES_NOFOLLOW, "ws/link");
	/* ... but a trailing slash means the directory it names. */
	resolves(AT_FDCWD, "ws/link/", CW_RES_NOFOLLOW, "ws/real");
	/* A dangling link is followed to where a creation would land... */
	resolves(AT_FDCWD, "ws/dangling2", 0, "ws/real/new");
	resolves(AT_FDCWD, "ws/dangling", CW_RES_NOFOLLOW, "ws/dangling");
	/* ...when its directory is there: the kernel walks every component
	 * but the last, so a missing one before it fails (ENOENT, also for
	 * a creation), and so does a file (ENOTDIR). Never lexically:
	 * "new/../file" does not name "file". */
	fails(AT_FDCWD, "ws/dangling", 0, ENOENT);
	fails(AT_FDCWD, "ws/real/new/deeper", 0, ENOENT);
	fails(AT_FDCWD, "ws/real/new/..", 0, ENOENT);
	fails(AT_FDCWD, "ws/real/new/../file", 0, ENOENT);
	fails(AT_FDCWD, "ws/real/new/.", 0, ENOENT);
	fails(AT_FDCWD, "ws/real/new/./", 0, ENOENT);
	fails(AT_FDCWD, "ws/dangling/..", 0, ENOENT);
	fails(AT_FDCWD, "ws/link/new/../file", 0, ENOENT);
	fails(AT_FDCWD, "ws/real/file/..", 0, ENOTDIR);
	fails(AT_FDCWD, "ws/real/file/../file", 0, ENOTDIR);
	fails(AT_FDCWD, "ws/real/file/x", CW_RES_NOFOLLOW, ENOTDIR);
	int d = open("ws", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(d >= 0);
	fails(d, "nothere/../real/file", 0, ENOENT);
	close(d);
}

static void test_loop(void **state)
{
	(void)state;
	struct cw_resolved r;
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), AT_FDCWD, "ws/loop1", 0, &r), -ELOOP);
}

static void test_dirfd(void **state)
{
	(void)state;
	int d = open("ws/real", O_RDONLY | O_DIRECTORY);
	assert_true(d >= 0);
	resolves(d, "file", 0, "ws/real/file");
	resolves(d, "sub/up/file", 0, "ws/real/file");
	resolves(d, "/etc/hostname", 0, "/etc/hostname"); /* absolute: dirfd ignored */
	resolves(d, "", CW_RES_EMPTY_PATH, "ws/real");
	struct cw_resolved r;
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), d, "", 0, &r), -ENOENT);
	int f = open("ws/real/file", O_RDONLY);
	assert_true(f >= 0);
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), f, "x", 0, &r), -ENOTDIR);
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), 9999, "x", 0, &r), -EBADF);
	close(f);
	close(d);
}

static void test_openat2_rules(void **state)
{
	(void)state;
	struct cw_resolved r;
	int d = open("ws/real", O_RDONLY | O_DIRECTORY);
	assert_true(d >= 0);
	/* IN_ROOT: the dirfd is "/", for names, ".." and absolute links. */
	resolves(d, "/file", CW_RES_IN_ROOT, "ws/real/file");
	resolves(d, "../../file", CW_RES_IN_ROOT, "ws/real/file");
	resolves(d, "sub/up/file", CW_RES_IN_ROOT, "ws/real/file");
	/* BENEATH: escapes are EXDEV, staying inside is fine. */
	resolves(d, "sub/../file", CW_RES_BENEATH, "ws/real/file");
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), d, "/etc/hostname", CW_RES_BENEATH, &r), -EXDEV);
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), d, "../link", CW_RES_BENEATH, &r), -EXDEV);
	/* NO_SYMLINKS: a symlink on the way is ELOOP. */
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), AT_FDCWD, "ws/link/file", CW_RES_NO_SYMLINKS, &r), -ELOOP);
	resolves(AT_FDCWD, "ws/real/file", CW_RES_NO_SYMLINKS, "ws/real/file");
	close(d);
}

static void test_proc_self_and_fds(void **state)
{
	(void)state;
	char want[PATH_MAX + 32];
	/* /proc/self names the target, not whoever resolves. */
	snprintf(want, sizeof(want), "/proc/%d/status", (int)getpid());
	resolves(AT_FDCWD, "/proc/self/status", 0, want);
	/* A read-only descriptor reopened for writing is decided on the file
	 * behind it; reopened for reading it grants nothing new. */
	int f = open("ws/real/file", O_RDONLY);
	assert_true(f >= 0);
	char p[64], fdname[32];
	snprintf(p, sizeof(p), "/dev/fd/%d", f);
	snprintf(fdname, sizeof(fdname), "/dev/fd/%d", f);
	resolves(AT_FDCWD, p, CW_RES_WANT_WRITE, "ws/real/file");
	resolves(AT_FDCWD, p, CW_RES_WANT_READ, fdname);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", f);
	resolves(AT_FDCWD, p, CW_RES_WANT_WRITE, "ws/real/file");
	close(f);
	/* A pipe is no path: it stays a descriptor. */
	int pp[2];
	assert_int_equal(pipe(pp), 0);
	snprintf(p, sizeof(p), "/dev/fd/%d", pp[1]);
	snprintf(fdname, sizeof(fdname), "/dev/fd/%d", pp[1]);
	resolves(AT_FDCWD, p, CW_RES_WANT_WRITE, fdname);
	close(pp[0]);
	close(pp[1]);
}

/* The fields besides the path, for each shape the one-openat2 shortcut
 * handles (no symlink on the way; final missing; final symlink not
 * followed) and those it leaves to the walk: they must agree with lstat. */
static void check_obj(const char *path, int flags, const char *want_rel, bool exists, bool is_symlink,
		      const char *stat_rel)
{
	struct cw_resolved r;
	struct stat st;
	resolves(AT_FDCWD, path, flags, want_rel);
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), AT_FDCWD, path, flags, &r), 0);
	if (r.exists != exists || r.is_symlink != is_symlink)
		fail_msg("%s: exists %d is_symlink %d, want %d %d", path, r.exists, r.is_symlink, exists,
			 is_symlink);
	if (!stat_rel) {
		assert_int_equal(r.mode, 0);
		return;
	}
	assert_int_equal(lstat(stat_rel, &st), 0);
	if (r.mode != st.st_mode)
		fail_msg("%s: mode %o, want %o", path, r.mode, (unsigned)st.st_mode);
}

static void test_object_fields(void **state)
{
	(void)state;
	char abs[PATH_MAX * 2];
	check_obj("ws/real/file", 0, "ws/real/file", true, false, "ws/real/file");
	snprintf(abs, sizeof(abs), "%s/ws/real/file", root);
	check_obj(abs, 0, "ws/real/file", true, false, "ws/real/file");
	check_obj("ws/real/sub/../file", 0, "ws/real/file", true, false, "ws/real/file");
	check_obj("ws/real/", 0, "ws/real", true, false, "ws/real");
	check_obj("ws/real/.", 0, "ws/real", true, false, NULL);
	check_obj("ws/real/new", 0, "ws/real/new", false, false, NULL);
	check_obj("ws/real/sub/../new", 0, "ws/real/new", false, false, NULL);
	check_obj("ws/link", CW_RES_NOFOLLOW, "ws/link", true, true, "ws/link");
	check_obj("ws/link/file", CW_RES_NOFOLLOW, "ws/real/file", true, false, "ws/real/file");
	check_obj("ws/link/new", 0, "ws/real/new", false, false, NULL);
	check_obj("ws/dangling", CW_RES_NOFOLLOW, "ws/dangling", true, true, "ws/dangling");
	check_obj("ws/dangling2", 0, "ws/real/new", false, false, NULL);
	/* (A missing or non-directory component before the last: an errno,
	 * test_symlinks.) */
}

/* The lexical shortcut of the open hot path (fs.c open_lexically): its
 * name is trusted only when openat2(RESOLVE_NO_SYMLINKS|NO_MAGICLINKS) of
 * the joined name does not fail ELOOP, and then it must be the walk's name
 * exactly, and the open's result the kernel's own for the target's name. */
static void lexical_agrees(const char *path, bool want_eloop, int want_err)
{
	struct cw_resolved lex, walk;
	char full[PATH_MAX];
	assert_int_equal(cw_resolve_lexical(links, getpid(), path, true, &lex, full, sizeof(full)), 0);
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC | O_NOCTTY,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, full, &how, sizeof(how));
	int err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	if ((err == ELOOP) != want_eloop)
		fail_msg("%s: openat2 of %s: %s", path, full, err ? strerror(err) : "opened");
	if (want_eloop)
		return; /* the caller walks */
	if (err != want_err)
		fail_msg("%s: openat2 of %s: %s, want %s", path, full, strerror(err), strerror(want_err));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if ((fd < 0 ? errno : 0) != want_err)
		fail_msg("%s: the kernel says %s", path, fd < 0 ? strerror(errno) : "opened");
	if (fd >= 0)
		close(fd);
	/* The walk fails where the kernel fails before the last component
	 * (it gives the lexical name no meaning there). */
	int we = cw_resolve_path(links, getpid(), getpid(), AT_FDCWD, path, 0, &walk);
	if (we < 0 && -we == want_err)
		return;
	assert_int_equal(we, 0);
	if (strcmp(lex.path, walk.path) != 0)
		fail_msg("%s: lexical %s, walk %s", path, lex.path, walk.path);
}

static void test_lexical(void **state)
{
	(void)state;
	struct cw_resolved r;
	char abs[PATH_MAX * 2], full[PATH_MAX];

	lexical_agrees("ws/real/file", false, 0);
	lexical_agrees("./ws//real/./file", false, 0);
	lexical_agrees(".", false, 0);
	lexical_agrees("ws/real/../real/file", false, 0);
	lexical_agrees("ws/real/sub/../../real/file", false, 0);
	lexical_agrees("ws/real/", false, 0);
	lexical_agrees("ws/real/.", false, 0);
	lexical_agrees("ws/real/nothere", false, ENOENT); /* kept as written, as the walk does */
	lexical_agrees("ws/nothere/new", false, ENOENT);
	lexical_agrees("ws/real/file/x", false, ENOTDIR);
	lexical_agrees("ws/real/file/", false, ENOTDIR);
	lexical_agrees("ws/real/file/.", false, ENOTDIR);
	lexical_agrees("ws/real/file/../file", false, ENOTDIR);
	snprintf(abs, sizeof(abs), "%s/ws/real/sub", root);
	lexical_agrees(abs, false, 0);
	/* A symlink anywhere on the way, even one ".." steps back out of:
	 * the open refuses the name. */
	lexical_agrees("ws/link/file", true, 0);
	lexical_agrees("ws/link", true, 0);
	lexical_agrees("ws/link/", true, 0);
	lexical_agrees("ws/link/../real/file", true, 0);
	lexical_agrees("ws/real/sub/up/file", true, 0);
	lexical_agrees("ws/dangling", true, 0);
	lexical_agrees("ws/abs/hostname", true, 0);
	lexical_agrees("ws/loop1", true, 0);
	lexical_agrees("ws/link/nothere", true, 0);
	assert_int_equal(cw_resolve_lexical(links, getpid(), "", true, &r, full, sizeof(full)), -ENOENT);
	/* Magic names and devices: the walk (and enforce_open's rules). */
	assert_int_equal(cw_resolve_lexical(links, getpid(), "/proc/self/fd/0", true, &r, full, sizeof(full)), -EAGAIN);
	assert_int_equal(cw_resolve_lexical(links, getpid(), "/proc", true, &r, full, sizeof(full)), -EAGAIN);
	assert_int_equal(cw_resolve_lexical(links, getpid(), "/dev/null", true, &r, full, sizeof(full)), -EAGAIN);
	assert_int_equal(cw_resolve_lexical(links, getpid(), "//dev//fd/3", true, &r, full, sizeof(full)), -EAGAIN);
	assert_int_equal(cw_resolve_lexical(links, getpid(), "/tmp/../dev/null", true, &r, full, sizeof(full)), -EAGAIN);
	assert_int_equal(cw_resolve_lexical(links, getpid(), "/sys/kernel", true, &r, full, sizeof(full)), -EAGAIN);
	assert_int_equal(cw_resolve_lexical(links, getpid(), "/procfs/x", true, &r, full, sizeof(full)), 0);
	assert_string_equal(r.path, "/procfs/x");
	assert_string_equal(full, "/procfs/x");
	/* Joined with the cwd past what the kernel opens: the walk. */
	char *deep = malloc(PATH_MAX);
	assert_non_null(deep);
	memset(deep, 'd', PATH_MAX - 2);
	deep[PATH_MAX - 2] = '\0';
	for (size_t i = 200; i < PATH_MAX - 2; i += 200)
		deep[i] = '/';
	assert_int_equal(cw_resolve_lexical(links, getpid(), deep, true, &r, full, sizeof(full)), -EAGAIN);
	free(deep);
}

/* Merged /usr: names through "/bin", "/lib"... resolve as the kernel
 * resolves them (realpath() here), ".." after the link included, and the
 * lexical form goes through the link only when asked to. Skipped on a
 * root without such links. */
static void test_merged_usr(void **state)
{
	(void)state;
	char text[256], want[PATH_MAX], full[PATH_MAX];
	struct cw_resolved r;
	if (cw_resolve_toplinks(links, text, sizeof(text)) == 0)
		skip();
	static const char *const names[] = {
		"/bin/sh", "/bin/../bin/sh", "/lib/x86_64-linux-gnu/libc.so.6",
		"/lib/x86_64-linux-gnu/../../../etc/hostname", "/lib//x86_64-linux-gnu/./libc.so.6",
		"/sbin/../lib", "/lib64/ld-linux-x86-64.so.2",
	};
	int tried = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!realpath(names[i], want))
			continue; /* not on this system */
		tried++;
		assert_int_equal(cw_resolve_path(links, getpid(), getpid(), AT_FDCWD, names[i], 0, &r), 0);
		if (strcmp(r.path, want) != 0)
			fail_msg("%s: got %s, the kernel says %s", names[i], r.path, want);
		/* without the links (every name walked): the same */
		assert_int_equal(cw_resolve_path(NULL, getpid(), getpid(), AT_FDCWD, names[i], 0, &r), 0);
		if (strcmp(r.path, want) != 0)
			fail_msg("%s: walked to %s, the kernel says %s", names[i], r.path, want);
	}
	assert_true(tried > 0);
	if (access("/lib", F_OK) == 0 && realpath("/lib", want) && strcmp(want, "/lib") != 0) {
		/* "/lib/.." is the link target's parent, not "/" */
		char parent[PATH_MAX + 16];
		snprintf(parent, sizeof(parent), "%s", want);
		*strrchr(parent, '/') = '\0';
		strcat(parent, "/nothere");
		assert_int_equal(cw_resolve_path(links, getpid(), getpid(), AT_FDCWD, "/lib/../nothere", 0, &r), 0);
		assert_string_equal(r.path, parent);
		assert_int_equal(cw_resolve_lexical(links, getpid(), "/lib/x", true, &r, full, sizeof(full)), 0);
		assert_string_not_equal(full, "/lib/x");
		assert_int_equal(cw_resolve_lexical(links, getpid(), "/lib/x", false, &r, full, sizeof(full)), 0);
		assert_string_equal(full, "/lib/x");
		/* the link itself, as the last component: not rewritten */
		assert_int_equal(cw_resolve_lexical(links, getpid(), "/lib", true, &r, full, sizeof(full)), 0);
		assert_string_equal(full, "/lib");
		/* RESOLVE_NO_SYMLINKS: the link is one */
		assert_int_equal(cw_resolve_path(links, getpid(), getpid(), AT_FDCWD, "/lib/x", CW_RES_NO_SYMLINKS, &r),
				 -ELOOP);
	}
}

static void test_memory(void **state)
{
	(void)state;
	char buf[PATH_MAX];
	static const char s[] = "/some/path";
	assert_int_equal(cw_mem_read_string(getpid(), (uintptr_t)s, buf, sizeof(buf)), (ssize_t)strlen(s));
	assert_string_equal(buf, s);
	assert_int_equal(cw_mem_read_string(getpid(), 0, buf, sizeof(buf)), -EFAULT);
	/* A string that runs into an unmapped page is a fault, not a
	 * truncated path. */
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(munmap(m + pg, (size_t)pg), 0);
	memset(m, 'a', (size_t)pg);
	assert_int_equal(cw_mem_read_string(getpid(), (uintptr_t)(m + pg - 100), buf, sizeof(buf)), -EFAULT);
	/* A string ending right at the guard page is fine. */
	m[pg - 1] = '\0';
	assert_int_equal(cw_mem_read_string(getpid(), (uintptr_t)(m + pg - 4), buf, sizeof(buf)), 3);
	/* No NUL within the limit: ENAMETOOLONG, as the kernel says. */
	char *big = malloc(PATH_MAX * 2);
	memset(big, 'b', PATH_MAX * 2);
	big[PATH_MAX * 2 - 1] = '\0';
	assert_int_equal(cw_mem_read_string(getpid(), (uintptr_t)big, buf, sizeof(buf)), -ENAMETOOLONG);
	free(big);
	munmap(m, (size_t)pg);
}

/* A cwd deeper than PATH_MAX (issue 14 item 10): its name is recovered
 * (the kernel's readlink of /proc/PID/cwd says ENAMETOOLONG), names under
 * it resolve to absolute names longer than PATH_MAX, symlinks in it are
 * followed, and cw_openat2_long() opens such names in steps. */
static void test_deep_cwd(void **state)
{
	(void)state;
	char comp[201];
	memset(comp, 'd', 200);
	comp[200] = '\0';
	size_t cap = strlen(root) + 31 * 201 + 64;
	char *want = malloc(cap);
	assert_non_null(want);
	snprintf(want, cap, "%s/ws", root);
	assert_int_equal(chdir("ws"), 0);
	for (int i = 0; i < 30; i++) {
		assert_int_equal(mkdir(comp, 0755), 0);
		assert_int_equal(chdir(comp), 0);
		strcat(want, "/");
		strcat(want, comp);
	}
	assert_true(strlen(want) > PATH_MAX);
	char lnk[64];
	ssize_t k = readlink("/proc/self/cwd", lnk, sizeof(lnk));
	assert_true(k < 0 && errno == ENAMETOOLONG); /* what the fix is for */
	assert_int_equal(symlink("/etc", "abs"), 0);
	assert_int_equal(symlink("../..", "up2"), 0);
	struct cw_resolved *r = malloc(sizeof(*r));
	assert_non_null(r);
	/* A missing name, an existing directory, ".." and symlinks. */
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), AT_FDCWD, "new.txt", 0, r), 0);
	char *exp = malloc(cap);
	assert_non_null(exp);
	snprintf(exp, cap, "%s/new.txt", want);
	assert_string_equal(r->path, exp);
	assert_false(r->exists);
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), AT_FDCWD, "..", 0, r), 0);
	snprintf(exp, cap, "%.*s", (int)(strlen(want) - 201), want);
	assert_string_equal(r->path, exp);
	assert_true(r->exists);
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), AT_FDCWD, "abs/hostname", 0, r), 0);
	assert_string_equal(r->path, "/etc/hostname");
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), AT_FDCWD, "up2/x", 0, r), 0);
	snprintf(exp, cap, "%.*s/x", (int)(strlen(want) - 402), want);
	assert_string_equal(r->path, exp);
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), AT_FDCWD, "abs", CW_RES_NOFOLLOW, r), 0);
	assert_true(r->is_symlink);
	/* Opened by that name, in steps, without symlinks. */
	snprintf(exp, cap, "%s/new.txt", want);
	struct open_how how = { .flags = O_CREAT | O_WRONLY | O_CLOEXEC, .mode = 0644,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = cw_openat2_long(exp, &how);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(access("new.txt", F_OK), 0);
	struct stat st;
	assert_int_equal(cw_stat_long(exp, &st, false), 0);
	assert_true(S_ISREG(st.st_mode));
	snprintf(exp, cap, "%s/abs/hostname", want);
	how.flags = O_RDONLY | O_CLOEXEC;
	how.mode = 0;
	assert_int_equal(cw_openat2_long(exp, &how), -ELOOP);
	/* The same through a descriptor of the deep directory. */
	int d = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(d >= 0);
	assert_int_equal(chdir(root), 0);
	assert_int_equal(cw_resolve_path(links, getpid(), getpid(), d, "new.txt", 0, r), 0);
	snprintf(exp, cap, "%s/new.txt", want);
	assert_string_equal(r->path, exp);
	assert_true(r->exists);
	close(d);
	free(exp);
	free(r);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_dots),
		cmocka_unit_test(test_symlinks),
		cmocka_unit_test(test_loop),
		cmocka_unit_test(test_dirfd),
		cmocka_unit_test(test_openat2_rules),
		cmocka_unit_test(test_proc_self_and_fds),
		cmocka_unit_test(test_object_fields),
		cmocka_unit_test(test_lexical),
		cmocka_unit_test(test_merged_usr),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_deep_cwd),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
