/* The run's scratch directory (scratch.h). */
#include "config.h"
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "supervisor/scratch.h"
#include "supervisor/state.h"
#include "supervisor/log.h"

int cw_scratch_create(struct cw_run *run, const char *tmpdir)
{
	char tmpl[PATH_MAX];
	snprintf(tmpl, sizeof(tmpl), "%s/capwatch-XXXXXX", tmpdir);
	if (!mkdtemp(tmpl)) { /* mkdtemp creates it 0700 */
		int e = -errno;
		cw_err("cannot create a scratch directory %s: %s", tmpl, strerror(errno));
		return e == -ENOMEM ? -EIO : e;
	}
	char realtmp[PATH_MAX];
	run->scratch = strdup(realpath(tmpl, realtmp) ? realtmp : tmpl);
	return run->scratch ? 0 : -ENOMEM;
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void cw_scratch_remove(struct cw_run *run)
{
	if (!run->scratch)
		return;
	if (run->opts->keep_scratch) {
		cw_info("scratch directory kept: %s", run->scratch);
		return;
	}
	/* FTW_PHYS: never follow a symlink the command left behind. */
	nftw(run->scratch, rm_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}
