# Approvals mid-run (issue 7): the approval socket, the terminal prompt
# (under tmux), host-name rules and `exec --request`.
APPROVAL_TESTS = \
	tests/approval/socket.sh \
	tests/approval/tty.sh \
	tests/approval/hosts.sh \
	tests/approval/exec_request.sh
TESTS += $(APPROVAL_TESTS)
EXTRA_DIST += $(APPROVAL_TESTS) tools/approval_client.py tests/approval/schema_check.py docs/agents.md
