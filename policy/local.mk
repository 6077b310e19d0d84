# libcwpolicy: the pure policy library (no syscalls, no globals).
noinst_LTLIBRARIES += policy/libcwpolicy.la
policy_libcwpolicy_la_SOURCES = \
	policy/capabilities.def policy/ops.def \
	policy/cap.h policy/cap.c \
	policy/path.h policy/path.c \
	policy/addr.h policy/addr.c \
	policy/profile.h policy/profile_impl.h policy/profile.c \
	policy/profile_scope.c policy/profile_expand.c policy/builtin.c \
	policy/policy.h policy/decide.c \
	policy/jbuf.h policy/jbuf.c \
	policy/text.h policy/text.c \
	policy/hmap.h policy/hmap.c \
	policy/trace.h policy/trace.c policy/trace_read.c \
	policy/report.h policy/report_impl.h policy/report.c \
	policy/report_render.c policy/report_spill.c
policy_libcwpolicy_la_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
policy_libcwpolicy_la_LIBADD = $(CJSON_LIBS)

# The profile loader (policy/profile_load.{h,c}: built-in names, files,
# "extends" chains of files) reads files, so it is not in the pure library:
# capwatch and the tools' test programs list it in their sources.
