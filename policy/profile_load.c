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

static int remember(struct cw_profile_files *files, const char *path)
{
	char abs[PATH_MAX];
	if (!realpath(path, abs))
		return -errno;
	char **a = realloc(files->paths, (files->n + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	files->paths = a;
	a[files->n] = strdup(abs);
	if (!a[files->n])
		return -ENOMEM;
	files->n++;
	return 0;
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
