# Approvals mid-run (issue 7): the approval socket, the terminal prompt
# (under tmux), host-name rules and `exec --request`.
APPROVAL_TESTS = \
	tests/approval/socket.sh \
	tests/approval/tty.sh \
	tests/approval/hosts.sh \
	tests/approval/exec_request.sh
TESTS += $(APPROVAL_TESTS)
EXTRA_DIST += $(APPROVAL_TESTS) tools/approval_client.py tests/approval/schema_check.py docs/agents.md

# The approval options of the run form, without a kernel.
check_PROGRAMS += supervisor/tests/test_cli_approval
TESTS += supervisor/tests/test_cli_approval
supervisor_tests_test_cli_approval_SOURCES = supervisor/tests/test_cli_approval.c supervisor/cli.c supervisor/cli.h
supervisor_tests_test_cli_approval_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
supervisor_tests_test_cli_approval_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS)
