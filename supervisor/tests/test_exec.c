/* Unit tests of the exec family (handlers/exec.c) with this test process
 * as the target (handler_stubs.h): the path and argv are read from our
 * own memory, resolved in our context, decided by the real policy, and
 * the image allowed is remembered in the real tracker for the exec stop.
 * Nothing is executed: the answer (CONTINUE) is recorded. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "handler_stubs.h"

/* The dispatch table (table.c) would bring every family with it; ptrace.c
 * reads only its filter rules, at signal stops this test never makes. */
const struct cw_syscall cw_syscalls[CW_NSYSCALLS];

static char prog[PATH_MAX];       /* an allowed program: /bin/sh, resolved */
static struct cw_kernel *fake_kernel = (struct cw_kernel *)&fake_kernel; /* never dereferenced */

static int setup_profile(const char *name)
{
	if (fake_run(name) < 0)
		return -1;
	if (!realpath("/bin/sh", prog))
		return -1;
	return 0;
}

static int setup_verify(void **state)
{
	(void)state;
	return setup_profile("verify");
}

static int setup_none(void **state)
{
	(void)state;
	return setup_profile("none");
}

static int teardown(void **state)
{
	(void)state;
	fake_run_free();
	return 0;
}

static int teardown_last(void **state)
{
	teardown(state);
	fake_run_remove_dir();
	return 0;
}

static struct cw_proc *self(void)
{
	struct cw_proc *p = cw_tracker_find(&run, getpid());
	assert_non_null(p);
	return p;
}

/* execve("/bin/sh", argv) under verify: process_spawn, allowed, on the
 * resolved path; CONTINUE (exec cannot be emulated, the exec stop checks
 * what the kernel loaded) with the image remembered for that check. */
static void test_exec_allowed_under_verify(void **state)
{
	(void)state;
	const char *argv[] = { "sh", "-c", "true", NULL };
	dispatch(cw_handle_exec, notify(__NR_execve, "execve", ptr("/bin/sh"), ptr(argv), 0, 0, 0, 0));
	assert_int_equal(seen.nanswers, 1);
	assert_int_equal(seen.kind, ANS_CONTINUE);
	assert_int_equal(seen.nrecorded, 1);
	assert_int_equal(seen.ev.op.kind, CW_OP_EXEC);
	assert_int_equal(seen.ev.d.verdict, CW_ALLOW);
	assert_int_equal(seen.ev.d.cap, CW_CAP_PROCESS_SPAWN);
	assert_string_equal(seen.scope, prog);
	assert_string_equal(seen.path, prog);
	assert_false(seen.ev.verified);
	assert_int_equal(seen.argc, 3);
	assert_string_equal(seen.argv[0], "sh");
	assert_string_equal(seen.argv[2], "true");

	struct stat st;
	assert_int_equal(stat(prog, &st), 0);
	struct cw_proc *p = self();
	assert_true(p->napproved >= 1);
	assert_true(cw_tracker_approved(p, &st));

	/* execveat(dirfd, relative name): resolved from the descriptor */
	int d = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(d >= 0);
	dispatch(cw_handle_exec, notify(__NR_execveat, "execveat", (uint64_t)d, ptr("bin/sh"), ptr(argv), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_CONTINUE);
	assert_int_equal(seen.ev.d.cap, CW_CAP_PROCESS_SPAWN);
	assert_string_equal(seen.scope, prog);
	assert_true(seen.ev.has_dirfd);
	close(d);
}

/* A name that is not there (execvp trying PATH): the kernel's ENOENT,
 * nothing decided or recorded. The path itself unreadable: EFAULT. */
static void test_exec_missing_or_unreadable(void **state)
{
	(void)state;
	const char *argv[] = { "x", NULL };
	dispatch(cw_handle_exec, notify(__NR_execve, "execve", ptr("/nonexistent/prog"), ptr(argv), 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, ENOENT);
	assert_int_equal(seen.nrecorded, 0);

	dispatch(cw_handle_exec, notify(__NR_execve, "execve", 0, ptr(argv), 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EFAULT);
	assert_int_equal(seen.nrecorded, 0);
}

/* argv is best effort: past the 64 entries the trace keeps, or at a
 * pointer into unmapped memory, the record's argv stops; the decision and
 * the answer are the same. For the kernel back end the whole argv is
 * kept for the process's record. */
static void test_exec_argv_limits(void **state)
{
	(void)state;
	enum { N = 100 };
	static char words[N][8];
	const char *argv[N + 1];
	for (int i = 0; i < N; i++) {
		snprintf(words[i], sizeof(words[i]), "a%d", i);
		argv[i] = words[i];
	}
	argv[N] = NULL;
	run.kernel = fake_kernel; /* the pending argv is read in full then */
	kernel_syncs = 0;
	dispatch(cw_handle_exec, notify(__NR_execve, "execve", ptr("/bin/sh"), ptr(argv), 0, 0, 0, 0));
	run.kernel = NULL;
	assert_int_equal(seen.kind, ANS_CONTINUE);
	assert_int_equal(seen.ev.d.cap, CW_CAP_PROCESS_SPAWN);
	assert_int_equal(seen.argc, CW_EXEC_ARGV_MAX);
	assert_string_equal(seen.argv[CW_EXEC_ARGV_MAX - 1], words[CW_EXEC_ARGV_MAX - 1]);
	assert_int_equal(kernel_syncs, 1);
	char **full = self()->pending_argv;
	assert_non_null(full);
	size_t k = 0;
	while (full[k])
		k++;
	assert_int_equal(k, N);
	assert_string_equal(full[N - 1], words[N - 1]);

	/* the pointer array itself unmapped: an empty argv, still decided */
	long pg = sysconf(_SC_PAGESIZE);
	char *two = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(two != MAP_FAILED);
	assert_int_equal(munmap(two + pg, (size_t)pg), 0); /* a guard page after the first */
	dispatch(cw_handle_exec, notify(__NR_execve, "execve", ptr("/bin/sh"), ptr(two + pg), 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_CONTINUE);
	assert_int_equal(seen.nrecorded, 1);
	assert_int_equal(seen.argc, 0);

	/* the array runs into the guard page before its NULL: cut there */
	const char **tail = (const char **)(two + pg) - 2;
	tail[0] = "sh";
	tail[1] = "-c";
	dispatch(cw_handle_exec, notify(__NR_execve, "execve", ptr("/bin/sh"), ptr(tail), 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_CONTINUE);
	assert_int_equal(seen.argc, 2);
	assert_string_equal(seen.argv[1], "-c");

	/* a string pointer into unmapped memory: argv stops before it */
	const char *bad[] = { "sh", (const char *)(two + pg), "never", NULL };
	dispatch(cw_handle_exec, notify(__NR_execve, "execve", ptr("/bin/sh"), ptr(bad), 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_CONTINUE);
	assert_int_equal(seen.argc, 1);

	/* a string that runs into the guard page: read the slow way, and
	 * stopped without its NUL */
	char *edge = two + pg - 4;
	memcpy(edge, "abcd", 4);
	const char *cut[] = { "sh", edge, NULL };
	dispatch(cw_handle_exec, notify(__NR_execve, "execve", ptr("/bin/sh"), ptr(cut), 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_CONTINUE);
	assert_int_equal(seen.argc, 1);

	/* the path itself right before the guard page, argv[0] the same
	 * string (the read window): both read */
	char *pedge = two + pg - 8;
	memcpy(pedge, "/bin/sh", 8);
	const char *same[] = { pedge, NULL };
	dispatch(cw_handle_exec, notify(__NR_execve, "execve", ptr(pedge), ptr(same), 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_CONTINUE);
	assert_string_equal(seen.scope, prog);
	assert_int_equal(seen.argc, 1);
	assert_string_equal(seen.argv[0], "/bin/sh");
	munmap(two, (size_t)pg);
}

/* Under `none` every exec is denied: EACCES (a file operation's errno,
 * what the kernel says of a program one may not run), recorded, nothing
 * approved for the exec stop. */
static void test_exec_denied_under_none(void **state)
{
	(void)state;
	const char *argv[] = { "sh", NULL };
	dispatch(cw_handle_exec, notify(__NR_execve, "execve", ptr("/bin/sh"), ptr(argv), 0, 0, 0, 0));
	assert_int_equal(seen.nanswers, 1);
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EACCES);
	assert_int_equal(seen.nrecorded, 1);
	assert_int_equal(seen.ev.d.verdict, CW_DENY);
	assert_int_equal(seen.ev.d.cap, CW_CAP_PROCESS_SPAWN);
	assert_string_equal(seen.scope, prog);
	assert_int_equal(self()->napproved, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exec_allowed_under_verify, setup_verify, teardown),
		cmocka_unit_test_setup_teardown(test_exec_missing_or_unreadable, setup_verify, teardown),
		cmocka_unit_test_setup_teardown(test_exec_argv_limits, setup_verify, teardown),
		cmocka_unit_test_setup_teardown(test_exec_denied_under_none, setup_none, teardown_last),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
