/* Profile loading (profile_load.h): built-in names, files, and "extends"
 * chains of files. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "profile_load.h"
#include "text.h"
#include "path.h"

#define PROFILE_MAX_BYTES (1 << 20)

struct loader {
	struct cw_profile_files *files;
	char dir[PATH_MAX]; /* directory of the file being parsed */
};

static int read_fd(int fd, char **text, size_t *len)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n + 1 >= cap) {
			if (cap >= PROFILE_MAX_BYTES) {
				free(buf);
				return -EFBIG;
			}
			cap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = -errno;
			free(buf);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

static int read_file(const char *path, char **text, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	int e = read_fd(fd, text, len);
	close(fd);
	return e;
}

/* Append a copy of S to *NAMES (kept NULL-terminated) unless it is there. */
static int push_unique(char ***names, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*names)[i], s) == 0)
			return 0;
	char **a = realloc(*names, (*n + 2) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	*names = a;
	if (!(a[*n] = strdup(s)))
		return -ENOMEM;
	a[++*n] = NULL;
	return 0;
}

int cw_walked_names(const char *cwd, const char *name, char ***names, size_t *n)
{
	char cur[PATH_MAX], pre[PATH_MAX], target[PATH_MAX], rest[2 * PATH_MAX];
	if (cw_path_join(cwd, name, cur, sizeof(cur)) < 0)
		return 0;
	int e = push_unique(names, n, cur);
	/* Walk CUR as the kernel does: PRE is the part reached so far, free
	 * of symlinks, so ".." in it is its parent. At a symlink the name
	 * continues as the link's directory, its target and the rest of CUR
	 * (".." kept), one more name to protect; 40 links, the kernel's
	 * ELOOP limit. Best effort beyond PATH_MAX or a name that is gone. */
	for (int links = 0; e == 0 && links < 40; links++) {
		size_t plen = 0;
		const char *p = cur;
		bool expanded = false;
		pre[0] = '\0';
		while (*p && !expanded) {
			while (*p == '/')
				p++;
			const char *c = p;
			size_t clen = strcspn(p, "/");
			p += clen;
			if (clen == 0 || (clen == 1 && c[0] == '.'))
				continue;
			if (clen == 2 && c[0] == '.' && c[1] == '.') {
				while (plen > 0 && pre[plen - 1] != '/')
					plen--;
				if (plen > 0)
					plen--;
				pre[plen] = '\0';
				continue;
			}
			if (plen + 1 + clen + 1 > sizeof(pre))
				return 0;
			pre[plen] = '/';
			memcpy(pre + plen + 1, c, clen);
			plen += 1 + clen;
			pre[plen] = '\0';
			struct stat st;
			if (lstat(pre, &st) < 0)
				return 0;
			if (!S_ISLNK(st.st_mode))
				continue;
			ssize_t tl = readlink(pre, target, sizeof(target) - 1);
			if (tl <= 0)
				return 0;
			target[tl] = '\0';
			pre[plen - clen - 1] = '\0'; /* the link's directory */
			int k = snprintf(rest, sizeof(rest), "%s%s", target, p);
			if (k < 0 || (size_t)k >= sizeof(rest) ||
			    cw_path_join(pre[0] ? pre : "/", rest, cur, sizeof(cur)) < 0)
				return 0;
			e = push_unique(names, n, cur);
			expanded = true;
		}
		if (!expanded)
			break;
	}
	return e;
}

/* A file of the chain, protected by its resolved name and by the names
 * the kernel walks for PATH, the name the loader reached it by (red team
 * 24: an "extends" through a symlinked directory, the link replaced). */
static int remember(struct cw_profile_files *files, const char *path)
{
	char abs[PATH_MAX], cwd[PATH_MAX];
	if (!realpath(path, abs))
		return -errno;
	int e = push_unique(&files->paths, &files->n, abs);
	if (e == 0 && (path[0] == '/' || getcwd(cwd, sizeof(cwd))))
		e = cw_walked_names(path[0] == '/' ? NULL : cwd, path, &files->paths, &files->n);
	return e;
}

static int parse_file(const char *path, int depth, struct cw_profile_files *files,
		      cw_profile **out, char *err, size_t errsz);

/* cw_profile_resolver: "extends" naming a file, relative to the child. */
static int resolve_extends(void *opaque, const char *ref, int depth, cw_profile **out,
			   char *err, size_t errsz)
{
	struct loader *l = opaque;
	char path[PATH_MAX];
	int k;
	if (ref[0] == '/')
		k = snprintf(path, sizeof(path), "%s", ref);
	else
		k = snprintf(path, sizeof(path), "%s/%s", l->dir, ref);
	if (k < 0 || (size_t)k >= sizeof(path)) {
		snprintf(err, errsz, "%s: extends path too long", ref);
		return -ENAMETOOLONG;
	}
	return parse_file(path, depth, l->files, out, err, errsz);
}

static int parse_file(const char *path, int depth, struct cw_profile_files *files,
		      cw_profile **out, char *err, size_t errsz)
{
	char *text = NULL;
	size_t len = 0;
	int e = read_file(path, &text, &len);
	if (e < 0) {
		snprintf(err, errsz, "%s: %s", path, strerror(-e));
		return e;
	}
	e = remember(files, path);
	if (e < 0) {
		snprintf(err, errsz, "%s: %s", path, strerror(-e));
		free(text);
		return e;
	}
	struct loader l = { .files = files };
	snprintf(l.dir, sizeof(l.dir), "%s", path);
	char *d = dirname(l.dir);
	if (d != l.dir)
		memmove(l.dir, d, strlen(d) + 1);
	e = cw_profile_parse(text, len, path, resolve_extends, &l, depth, out, err, errsz);
	free(text);
	return e;
}

int cw_profile_load_quiet(const char *arg, cw_profile **out, struct cw_profile_files *files,
			  char *err, size_t errsz)
{
	if (errsz)
		err[0] = '\0';
	if (!strchr(arg, '/')) {
		int e = cw_profile_builtin(arg, out);
		if (e == 0)
			return 0;
		size_t al = strlen(arg);
		bool looks_like_file = al > 5 && strcmp(arg + al - 5, ".json") == 0;
		if (access(arg, F_OK) < 0 && looks_like_file) {
			/* Meant as a file: say what is wrong with the file. */
			snprintf(err, errsz, "--profile %s: no such file (built-in profiles: none, readonly, "
				 "verify, repair, observe)", arg);
			return -ENOENT;
		}
		if (access(arg, F_OK) < 0) {
			snprintf(err, errsz, "unknown profile \"%s\" (built-in profiles: none, readonly, verify, "
				 "repair, observe; or give a file path)", arg);
			return -ENOENT;
		}
	}
	int e = parse_file(arg, 0, files, out, err, errsz);
	if (e < 0 && errsz && !err[0])
		snprintf(err, errsz, "%s", strerror(-e));
	return e;
}


int cw_profile_load(const char *arg, cw_profile **out, struct cw_profile_files *files)
{
	char err[2048];
	int e = cw_profile_load_quiet(arg, out, files, err, sizeof(err));
	if (e == 0)
		return 0;
	/* one message, one write, as every capwatch diagnostic */
	static const char prefix[] = "capwatch: ";
	char buf[2 * sizeof(err)];
	size_t n = sizeof(prefix) - 1;
	int saved = errno;
	memcpy(buf, prefix, n);
	n += cw_text_escape(buf + n, sizeof(buf) - n - 1, err, strlen(err));
	buf[n++] = '\n';
	/* best effort: a failed write to stderr is ignored */
	while (write(2, buf, n) < 0 && errno == EINTR)
		;
	errno = saved;
	return e;
}

void cw_profile_files_free(struct cw_profile_files *files)
{
	for (size_t i = 0; i < files->n; i++)
		free(files->paths[i]);
	free(files->paths);
	files->paths = NULL;
	files->n = 0;
}
