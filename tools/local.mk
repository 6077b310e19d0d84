# Subcommands over traces (replay, explain, learn, diff, export, profiles)
# are linked into the capwatch binary (supervisor/local.mk uses this list).
# They load --profile with the one loader (policy/profile_load.c, already in
# capwatch_SOURCES); other programs linking them add it. Nothing here uses
# supervisor/.
CW_TOOLS_SOURCES = tools/tools.h tools/common.h tools/common.c \
	tools/sset.h tools/sset.c tools/trace_reader.h tools/trace_reader.c \
	tools/run_model.h tools/run_model.c \
	tools/replay.c tools/explain.c tools/learn.c tools/diff.c \
	tools/export.c tools/export_sarif.h tools/export_sarif.c \
	tools/export_timeline.h tools/export_timeline.c tools/profiles.c

# The HTML export's drawing code is kept as JavaScript in tools/timeline.js
# and compiled in as one C string (tools/timeline_js.h, generated).
BUILT_SOURCES += tools/timeline_js.h
# (BUILT_SOURCES covers make all and make check; these cover make capwatch)
tools/capwatch-export_timeline.$(OBJEXT) tools/tests_tools_cwtool-export_timeline.$(OBJEXT): \
	tools/timeline_js.h
CLEANFILES += tools/timeline_js.h
EXTRA_DIST += tools/timeline.js
tools/timeline_js.h: $(srcdir)/tools/timeline.js
	$(AM_V_GEN)$(MKDIR_P) tools && \
	if grep -n -e '</' -e '<!--' $(srcdir)/tools/timeline.js; then \
		echo "tools/timeline.js: the lines above would end the page's script element" >&2; exit 1; fi && \
	$(AWK) 'BEGIN { print "/* generated from tools/timeline.js by tools/local.mk: do not edit */"; \
		print "static const char timeline_js[] =" } \
		{ gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); print "\t\"" $$0 "\\n\"" } \
		END { print "\t\"\";" }' $(srcdir)/tools/timeline.js >$@-t && mv $@-t $@

# Helper scripts:
dist_noinst_SCRIPTS += tools/install-deps

# `make fuzz-trace`: libFuzzer over the trace reader (tools/fuzz_trace.c) with
# AddressSanitizer, for FUZZ_TRACE_SECONDS. Not part of `make check`. Needs
# clang and its fuzzer runtime (Debian 12: apt-get install clang
# libclang-rt-14-dev). The corpus is seeded with the test fixtures and kept
# in tools/fuzz-corpus of the build tree; crashes land in tools/.
EXTRA_DIST += tools/fuzz_trace.c
FUZZ_TRACE_SECONDS = 60
CW_FUZZ_CC = clang
CW_FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined,float-cast-overflow \
	-fno-sanitize-recover=undefined,float-cast-overflow \
	-DHAVE_CONFIG_H -I$(top_builddir) -I$(top_srcdir) -I$(top_srcdir)/policy $(CJSON_CFLAGS)
CLEANFILES += tools/fuzz_trace tools/fuzz-probe tools/fuzz-probe.c
.PHONY: fuzz-trace
fuzz-trace: tests/tools/gen_trace
	@command -v $(CW_FUZZ_CC) >/dev/null 2>&1 || { \
		echo "fuzz-trace: $(CW_FUZZ_CC) not found; install it: apt-get install clang libclang-rt-14-dev" >&2; exit 1; }
	@$(MKDIR_P) tools
	@printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
		>tools/fuzz-probe.c
	@$(CW_FUZZ_CC) -fsanitize=fuzzer,address tools/fuzz-probe.c -o tools/fuzz-probe 2>/dev/null || { \
		echo "fuzz-trace: $(CW_FUZZ_CC) cannot link -fsanitize=fuzzer: its runtime is missing." >&2; \
		echo "  Debian 12: apt-get install libclang-rt-14-dev (match your clang version:" >&2; \
		echo "  apt-cache search libclang-rt lists the packages)" >&2; exit 1; }
	$(CW_FUZZ_CC) $(CW_FUZZ_FLAGS) $(srcdir)/tools/fuzz_trace.c $(srcdir)/tools/common.c \
		$(srcdir)/tools/sset.c $(srcdir)/tools/trace_reader.c $(srcdir)/tools/run_model.c \
		$(srcdir)/policy/profile_load.c \
		$(addprefix $(srcdir)/,$(filter %.c,$(policy_libcwpolicy_la_SOURCES))) \
		$(CJSON_LIBS) -o tools/fuzz_trace
	@$(MKDIR_P) tools/fuzz-corpus
	@for s in "build verify" "build2 observe" "script verify" "bytes observe" "build verify observe"; do \
		tests/tools/gen_trace $$s >"tools/fuzz-corpus/seed-$$(echo $$s | tr ' ' -).jsonl" || exit 1; \
	done
	cd tools && ./fuzz_trace -max_total_time=$(FUZZ_TRACE_SECONDS) -close_fd_mask=3 -max_len=16384 \
		-timeout=10 -rss_limit_mb=2048 fuzz-corpus
