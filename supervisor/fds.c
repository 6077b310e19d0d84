/* Inherited descriptors: see fds.h. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "supervisor/fds.h"
#include "supervisor/state.h"
#include "supervisor/record.h"
#include "supervisor/log.h"
#include "preload/proto.h"

static const char *fd_kind(mode_t m)
{
	if (S_ISREG(m))
		return "file";
	if (S_ISDIR(m))
		return "directory";
	if (S_ISFIFO(m))
		return "pipe";
	if (S_ISSOCK(m))
		return "socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "device";
	return "other";
}

static const char *fd_mode(int fl)
{
	switch (fl & O_ACCMODE) {
	case O_WRONLY:
		return "w";
	case O_RDWR:
		return "rw";
	default:
		return "r";
	}
}

static int cmp_fd(const void *a, const void *b)
{
	const struct cw_inherited_fd *x = a, *y = b;
	return (x->fd > y->fd) - (x->fd < y->fd);
}

int cw_fds_snapshot(const int *exclude, size_t nexclude, struct cw_inherited_fd **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 0; /* no /proc: nothing to say (close_range still closes them) */
	int self = dirfd(d);
	struct cw_inherited_fd *v = NULL;
	size_t cap = 0, cnt = 0;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || fd <= 2 || fd == self || fd > INT_MAX)
			continue;
		bool skip = false;
		for (size_t i = 0; i < nexclude; i++)
			skip |= exclude[i] == fd;
		struct stat st;
		int fl = fcntl((int)fd, F_GETFL);
		if (skip || fl < 0 || fstat((int)fd, &st) < 0)
			continue;
		if (cnt == cap) {
			size_t nc = cap ? cap * 2 : 8;
			struct cw_inherited_fd *nv = realloc(v, nc * sizeof(*v));
			if (!nv) {
				rc = -ENOMEM;
				break;
			}
			v = nv;
			cap = nc;
		}
		char link[64], target[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/self/fd/%ld", fd);
		ssize_t len = readlink(link, target, sizeof(target) - 1);
		if (len < 0)
			len = 0;
		target[len] = '\0';
		struct cw_inherited_fd *f = &v[cnt];
		memset(f, 0, sizeof(*f));
		f->fd = (int)fd;
		f->kind = fd_kind(st.st_mode);
		f->mode = fd_mode(fl);
		f->path = strdup(target);
		if (!f->path) {
			rc = -ENOMEM;
			break;
		}
		cnt++;
	}
	closedir(d);
	if (rc < 0) {
		cw_fds_free(v, cnt);
		return rc;
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_fd);
	*out = v;
	*n = cnt;
	return 0;
}

void cw_fds_free(struct cw_inherited_fd *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* A --keep-fd descriptor, decided like an open of what it refers to: a
 * file, directory or device by its path and mode; a pipe or socket (make's
 * jobserver, socket activation) is a channel its starter made, passed. */
static bool keep_allowed(struct cw_run *run, struct cw_inherited_fd *f)
{
	bool named = strcmp(f->kind, "pipe") != 0 && strcmp(f->kind, "socket") != 0 &&
		     strcmp(f->kind, "other") != 0;
	if (!named)
		return true;
	struct cw_op op = {
		.kind = strcmp(f->mode, "r") == 0 ? CW_OP_OPEN_READ : CW_OP_OPEN_WRITE,
		.syscall = "keep-fd",
		.path = f->path,
	};
	struct cw_decision d;
	cw_policy_decide(run->profile, &run->ctx, &op, &d);
	cw_report_count_capability(run->report, d.cap, d.scope, d.verdict);
	if (d.verdict == CW_ALLOW || run->observe)
		return true;
	if (d.verdict == CW_ASK) {
		d.verdict = CW_DENY; /* decided before the command starts: no prompt */
		d.next_action = CW_NEXT_REQUEST_APPROVAL;
	}
	struct cw_denial_record dr = { .pid = 0, .program = run->command_path, .syscall = "keep-fd",
				       .d = &d, .time = cw_record_time(run), .enforced = true };
	cw_report_add_denial(run->report, &dr);
	run->denials++;
	if (!run->have_denial) {
		run->have_denial = true;
		run->first_denial = d;
	}
	cw_record_note(run, 0, "warning", "--keep-fd %d (%s %s) denied by profile %s (%s): closed",
		    f->fd, f->kind, f->path, run->profile_name, d.rule);
	return false;
}

int cw_fds_decide(struct cw_run *run)
{
	const struct cw_options *o = run->opts;
	for (size_t k = 0; k < o->nkeep_fds; k++) {
		struct cw_inherited_fd *f = NULL;
		for (size_t i = 0; i < o->ninherited; i++)
			if (o->inherited[i].fd == o->keep_fds[k])
				f = &o->inherited[i];
		if (!f || o->keep_fds[k] == CW_ANNOT_FD) {
			cw_err("--keep-fd %d: %s", o->keep_fds[k],
			       o->keep_fds[k] == CW_ANNOT_FD ? "reserved for the preload's channel"
							     : "not an open descriptor capwatch was given");
			return -1;
		}
		f->keep = true;
	}
	for (size_t i = 0; i < o->ninherited; i++) {
		struct cw_inherited_fd *f = &o->inherited[i];
		f->passed = f->keep && keep_allowed(run, f);
		cw_report_add_inherited_fd(run->report, f->fd, f->kind, f->path, f->mode, f->passed);
		if (!f->keep)
			cw_record_note(run, 0, "info",
				    "inherited descriptor %d (%s %s, %s) closed; pass it with --keep-fd %d",
				    f->fd, f->kind, f->path, f->mode, f->fd);
	}
	return 0;
}

void cw_fds_child(const struct cw_run *run)
{
	const struct cw_options *o = run->opts;
	for (size_t i = 0; i < o->ninherited; i++)
		if (o->inherited[i].passed)
			fcntl(o->inherited[i].fd, F_SETFD, 0);
}
