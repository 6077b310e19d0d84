# The capwatch binary: CLI, launcher, seccomp listener, ptrace tracker,
# handlers, report and trace writers, plus the trace tools of tools/.
bin_PROGRAMS += capwatch
capwatch_SOURCES = \
	supervisor/main.c \
	supervisor/util.h supervisor/hashkey.h \
	supervisor/cli.h supervisor/cli.c supervisor/cli_sub.c \
	supervisor/log.h supervisor/log.c \
	policy/profile_load.h policy/profile_load.c \
	supervisor/run.h supervisor/run.c supervisor/state.h \
	supervisor/record.h supervisor/record.c \
	supervisor/changes.h supervisor/changes.c \
	supervisor/scratch.h supervisor/scratch.c \
	supervisor/outcome.h supervisor/outcome.c \
	supervisor/filter.h supervisor/filter.c \
	supervisor/launch.h supervisor/launch.c \
	supervisor/privs.h supervisor/privs.c \
	supervisor/fds.h supervisor/fds.c \
	supervisor/landlock.h supervisor/landlock.c \
	supervisor/limits.h supervisor/limits.c \
	supervisor/notify.h supervisor/notify.c \
	supervisor/watchdog.h supervisor/watchdog.c \
	supervisor/tty_link.h supervisor/tty_link.c \
	supervisor/colocate.h supervisor/colocate.c \
	supervisor/ptrace.h supervisor/ptrace.c \
	supervisor/kernel.h supervisor/kernel.c \
	supervisor/cgmember.h supervisor/cgmember.c \
	supervisor/ingress.h supervisor/ingress.c \
	supervisor/resolve.h supervisor/resolve.c \
	supervisor/secret_ids.h supervisor/secret_ids.c \
	supervisor/annot.h supervisor/annot_impl.h supervisor/annot.c \
	supervisor/annot_channel.c supervisor/annot_symbols.c supervisor/annot_match.c \
	supervisor/approval.h supervisor/approval.c \
	supervisor/hosts.h supervisor/hosts.c \
	supervisor/exec_request.h supervisor/exec_request.c \
	supervisor/sha256.h supervisor/sha256.c \
	supervisor/handlers/handlers.h supervisor/handlers/common.h \
	supervisor/handlers/scratch.h supervisor/handlers/scratch.c \
	supervisor/handlers/table.c \
	supervisor/handlers/target.c \
	supervisor/handlers/fs.c \
	supervisor/handlers/fs_impl.h \
	supervisor/handlers/fs_open.c supervisor/handlers/fs_path.c supervisor/handlers/fs_meta.c \
	supervisor/handlers/fs_special.h supervisor/handlers/fs_special.c \
	supervisor/handlers/net_impl.h supervisor/handlers/net.c \
	supervisor/handlers/net_addr.c supervisor/handlers/net_send.c \
	supervisor/handlers/net_unix_bind.c \
	supervisor/handlers/exec.c \
	supervisor/handlers/proc.c \
	supervisor/handlers/keys.h supervisor/handlers/keys.c \
	supervisor/handlers/ioctl.c \
	supervisor/handlers/sigio.c \
	$(CW_TOOLS_SOURCES)
capwatch_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS) $(CJSON_CFLAGS) $(LIBBPF_CFLAGS)
capwatch_LDADD = policy/libcwpolicy.la $(SECCOMP_LIBS) $(CJSON_LIBS) $(LIBBPF_LIBS)

# The kernel back end's ingress guard (supervisor/ingress.c): the BPF
# program compiled by clang, embedded in a skeleton header by bpftool.
EXTRA_DIST += supervisor/bpf/ingress.bpf.c
if HAVE_BPF
BUILT_SOURCES += supervisor/bpf/ingress.skel.h
CLEANFILES += supervisor/bpf/ingress.bpf.o supervisor/bpf/ingress.skel.h
supervisor/bpf/ingress.bpf.o: $(srcdir)/supervisor/bpf/ingress.bpf.c
	@$(MKDIR_P) supervisor/bpf
	$(AM_V_GEN)$(CLANG) -O2 -g -target bpf $(BPF_CPPFLAGS) $(LIBBPF_CFLAGS) -c $(srcdir)/supervisor/bpf/ingress.bpf.c -o $@
supervisor/bpf/ingress.skel.h: supervisor/bpf/ingress.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton supervisor/bpf/ingress.bpf.o name cw_ingress_skel >$@.tmp && mv $@.tmp $@
endif

# The run-form command line, tested without a kernel.
check_PROGRAMS += supervisor/tests/test_cli
TESTS += supervisor/tests/test_cli
supervisor_tests_test_cli_SOURCES = supervisor/tests/test_cli.c supervisor/cli.c supervisor/cli.h
supervisor_tests_test_cli_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
supervisor_tests_test_cli_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS)

# Path resolution and target-memory reads, with the test process as target.
check_PROGRAMS += supervisor/tests/test_resolve
TESTS += supervisor/tests/test_resolve
supervisor_tests_test_resolve_SOURCES = supervisor/tests/test_resolve.c supervisor/resolve.c supervisor/resolve.h
supervisor_tests_test_resolve_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
supervisor_tests_test_resolve_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS)

# SHA-256 of captured output (exec --request), against the standard's vectors.
# Cgroup membership of a child whose fork event was just read (needs root,
# cgroup v2 and the proc connector; skipped otherwise).
check_PROGRAMS += supervisor/tests/test_cgmember
TESTS += supervisor/tests/test_cgmember
supervisor_tests_test_cgmember_SOURCES = supervisor/tests/test_cgmember.c supervisor/cgmember.c supervisor/cgmember.h
supervisor_tests_test_cgmember_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
supervisor_tests_test_cgmember_LDADD = $(CMOCKA_LIBS)

check_PROGRAMS += supervisor/tests/test_sha256
TESTS += supervisor/tests/test_sha256
supervisor_tests_test_sha256_SOURCES = supervisor/tests/test_sha256.c supervisor/sha256.c supervisor/sha256.h
supervisor_tests_test_sha256_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
supervisor_tests_test_sha256_LDADD = $(CMOCKA_LIBS)

# The generated seccomp filter, run in a BPF interpreter (issue 16 item 4).
# Links filter.c, table.c and log.c only: the handlers are stubs in the test.
check_PROGRAMS += supervisor/tests/test_filter
TESTS += supervisor/tests/test_filter
supervisor_tests_test_filter_SOURCES = supervisor/tests/test_filter.c \
	supervisor/filter.c supervisor/filter.h \
	supervisor/handlers/table.c supervisor/handlers/handlers.h \
	supervisor/log.c supervisor/log.h
supervisor_tests_test_filter_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS) $(CJSON_CFLAGS) $(CMOCKA_CFLAGS)
supervisor_tests_test_filter_LDADD = policy/libcwpolicy.la $(SECCOMP_LIBS) $(CMOCKA_LIBS) $(CJSON_LIBS)

# The network family with the test process as the target (issue 16 item
# 4): address copies and checks, unix resolution, the decision and the
# answer of connect and bind, their effect on the test's own sockets.
# notify.c's event flow is stubbed (tests/handler_stubs.h).
check_PROGRAMS += supervisor/tests/test_net
TESTS += supervisor/tests/test_net
supervisor_tests_test_net_SOURCES = supervisor/tests/test_net.c supervisor/tests/handler_stubs.h \
	supervisor/handlers/net.c supervisor/handlers/net_addr.c supervisor/handlers/net_send.c \
	supervisor/handlers/net_unix_bind.c \
	supervisor/handlers/net_impl.h supervisor/handlers/target.c \
	supervisor/resolve.c supervisor/resolve.h supervisor/privs.c supervisor/privs.h \
	supervisor/ingress.c supervisor/ingress.h \
	supervisor/log.c supervisor/log.h
supervisor_tests_test_net_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS) $(LIBBPF_CFLAGS)
supervisor_tests_test_net_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS) $(LIBBPF_LIBS) -lpthread

# Secrets by content (keys.c) and how fs_special.c classifies /proc paths
# and devices, on real files and the test's own /proc (issue 16 item 4).
check_PROGRAMS += supervisor/tests/test_fs_special
TESTS += supervisor/tests/test_fs_special
supervisor_tests_test_fs_special_SOURCES = supervisor/tests/test_fs_special.c \
	supervisor/handlers/fs_special.c supervisor/handlers/fs_special.h supervisor/handlers/fs_impl.h \
	supervisor/handlers/keys.c supervisor/handlers/keys.h supervisor/handlers/target.c \
	supervisor/resolve.c supervisor/resolve.h supervisor/log.c supervisor/log.h
supervisor_tests_test_fs_special_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
supervisor_tests_test_fs_special_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS) -lpthread

# The exec family with the test process as the target (issue 16 item 4):
# path and argv read from our own memory (limits, unmapped pointers), the
# decision under verify and none, the image remembered in the real
# tracker. notify.c's event flow is stubbed (tests/handler_stubs.h).
check_PROGRAMS += supervisor/tests/test_exec
TESTS += supervisor/tests/test_exec
supervisor_tests_test_exec_SOURCES = supervisor/tests/test_exec.c supervisor/tests/handler_stubs.h \
	supervisor/handlers/exec.c supervisor/handlers/scratch.h \
	supervisor/ptrace.c supervisor/ptrace.h \
	supervisor/resolve.c supervisor/resolve.h supervisor/log.c supervisor/log.h
supervisor_tests_test_exec_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
supervisor_tests_test_exec_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS) -lpthread

# The process family and ioctl with the test process as the target: kill,
# tgkill, pidfd_open, F_SETOWN, the pid calls, TIOCSTI and FIOSETOWN,
# aimed inside the tree (the real tracker) and outside it (a child it was
# not told of, pid 1), and the children still alive after.
check_PROGRAMS += supervisor/tests/test_proc
TESTS += supervisor/tests/test_proc
supervisor_tests_test_proc_SOURCES = supervisor/tests/test_proc.c supervisor/tests/handler_stubs.h \
	supervisor/handlers/proc.c supervisor/handlers/ioctl.c supervisor/handlers/sigio.c \
	supervisor/handlers/table.c \
	supervisor/handlers/target.c supervisor/handlers/scratch.h \
	supervisor/ptrace.c supervisor/ptrace.h \
	supervisor/resolve.c supervisor/resolve.h supervisor/log.c supervisor/log.h
supervisor_tests_test_proc_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
supervisor_tests_test_proc_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS) -lpthread

# The file family with the test process as the target (issue 16 item 4):
# opens, path calls and metadata decided by the real policy and performed
# in a temporary workspace; notify.c's event flow and answers stubbed
# (tests/handler_stubs.h).
check_PROGRAMS += supervisor/tests/test_fs
TESTS += supervisor/tests/test_fs
supervisor_tests_test_fs_SOURCES = supervisor/tests/test_fs.c supervisor/tests/handler_stubs.h \
	supervisor/handlers/fs.c supervisor/handlers/fs_impl.h \
	supervisor/handlers/fs_open.c supervisor/handlers/fs_path.c supervisor/handlers/fs_meta.c \
	supervisor/handlers/fs_special.c supervisor/handlers/fs_special.h \
	supervisor/handlers/keys.c supervisor/handlers/keys.h supervisor/handlers/target.c \
	supervisor/resolve.c supervisor/resolve.h supervisor/log.c supervisor/log.h
supervisor_tests_test_fs_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
supervisor_tests_test_fs_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS) -lpthread
