/* The Landlock domain capwatch puts on the command, applied to a child of
 * this probe by the same code (cw_landlock_prepare/cw_landlock_child) with
 * the given profile, workspace and scratch, and then exercised by that
 * child itself: the writes a command makes without capwatch in the way
 * (what capwatch CONTINUEs, or what a race would let through).
 *
 * Usage: ll_probe PROFILE WORKSPACE SCRATCH OUTSIDE_DIR [ALLOWED_DIR]
 * PROFILE is a built-in name, or a profile file when it holds a '/'.
 * With ALLOWED_DIR (a directory outside the workspace that the profile's
 * "unrestricted" scopes allow writes beneath), writes there are probed too.
 * Prints one line per probe, "name errno" (0 = allowed), and "layer L".
 * Exit 77 when Landlock is unavailable. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "policy.h"
#include "profile.h"
#include "supervisor/cli.h"
#include "supervisor/landlock.h"
#include "supervisor/state.h"

static void probe(const char *name, int r)
{
	printf("%s %d\n", name, r < 0 ? errno : 0);
}

int main(int argc, char **argv)
{
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: ll_probe PROFILE WORKSPACE SCRATCH OUTSIDE_DIR [ALLOWED_DIR]\n");
		return 2;
	}
	struct cw_options opts = { .profile = argv[1], .report_fd = -1, .approval_fd = -1 };
	struct cw_run run = { .opts = &opts };
	if (strchr(argv[1], '/')) {
		static char text[65536], err[512];
		FILE *f = fopen(argv[1], "re");
		size_t n = f ? fread(text, 1, sizeof(text), f) : 0;
		if (f)
			fclose(f);
		if (!n || cw_profile_parse(text, n, argv[1], NULL, NULL, 0, &run.profile, err, sizeof(err)) < 0) {
			fprintf(stderr, "profile %s: %s\n", argv[1], n ? err : "unreadable");
			return 2;
		}
	} else if (cw_profile_builtin(argv[1], &run.profile) < 0) {
		fprintf(stderr, "no built-in profile %s\n", argv[1]);
		return 2;
	}
	run.ctx.home = getenv("HOME");
	char *roots[] = { argv[2] };
	run.ctx.roots = (const char *const *)roots;
	run.ctx.nroots = 1;
	run.scratch = argv[3];
	cw_landlock_prepare(&run);
	const char *layer = cw_landlock_layer(&run);
	printf("layer %s\n", layer ? layer : "none");
	printf("note %s\n", cw_landlock_note(&run));
	fflush(stdout);
	if (!layer && strstr(cw_landlock_note(&run), "unavailable"))
		return 77;

	pid_t pid = fork();
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || cw_landlock_child(&run) < 0) {
			perror("landlock");
			_exit(3);
		}
		char p[4096];
		snprintf(p, sizeof(p), "%s/ws-file", argv[2]);
		probe("create_workspace", open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
		snprintf(p, sizeof(p), "%s/ws-dir", argv[2]);
		probe("mkdir_workspace", mkdir(p, 0755));
		snprintf(p, sizeof(p), "%s/tmp-file", argv[3]);
		probe("create_scratch", open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
		probe("write_devnull", open("/dev/null", O_WRONLY | O_CLOEXEC));
		snprintf(p, sizeof(p), "%s/canary", argv[4]);
		probe("write_outside", open(p, O_WRONLY | O_CLOEXEC));
		probe("truncate_outside", truncate(p, 0));
		probe("unlink_outside", unlink(p));
		snprintf(p, sizeof(p), "%s/new", argv[4]);
		probe("create_outside", open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
		snprintf(p, sizeof(p), "%s/blk", argv[2]);
		probe("mknod_block_workspace", mknod(p, S_IFBLK | 0600, makedev(7, 0)));
		if (argc == 6) {
			snprintf(p, sizeof(p), "%s/new", argv[5]);
			probe("create_allowed", open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
			snprintf(p, sizeof(p), "%s/dir", argv[5]);
			probe("mkdir_allowed", mkdir(p, 0755));
			snprintf(p, sizeof(p), "%s/dir/deeper", argv[5]);
			probe("create_allowed_deeper", open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
		}
		fflush(stdout);
		_exit(0);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	cw_landlock_free(&run);
	cw_profile_free(run.profile);
	return 0;
}
