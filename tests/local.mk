# Every test suite has its own fragment. Shell tests exit 0 (pass), 77 (skip,
# with the reason on stderr) or anything else (fail).
TEST_EXTENSIONS = .sh .py
SH_LOG_COMPILER = $(SHELL)
PY_LOG_COMPILER = $(PYTHON3)
EXTRA_DIST += tests/lib.sh

include $(srcdir)/tests/unit/policy.mk
include $(srcdir)/tests/unit/json.mk
include $(srcdir)/tests/integration/local.mk
include $(srcdir)/tests/tools/local.mk
include $(srcdir)/tests/escapes/local.mk
include $(srcdir)/tests/bench/local.mk
include $(srcdir)/tests/preload/local.mk
include $(srcdir)/tests/approval/local.mk
include $(srcdir)/tests/hardening/local.mk
