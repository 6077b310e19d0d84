# The capwatch binary: CLI, launcher, seccomp listener, ptrace tracker,
# handlers, report and trace writers, plus the trace tools of tools/.
bin_PROGRAMS += capwatch
capwatch_SOURCES = \
	supervisor/main.c \
	supervisor/util.h \
	supervisor/cli.h supervisor/cli.c \
	supervisor/log.h supervisor/log.c \
	supervisor/profile_load.h supervisor/profile_load.c \
	supervisor/run.h supervisor/run.c \
	supervisor/filter.h supervisor/filter.c \
	supervisor/launch.h supervisor/launch.c \
	supervisor/notify.h supervisor/notify.c \
	supervisor/ptrace.h supervisor/ptrace.c \
	supervisor/resolve.h supervisor/resolve.c \
	supervisor/handlers/handlers.h supervisor/handlers/common.h \
	supervisor/handlers/table.c \
	supervisor/handlers/fs.c \
	supervisor/handlers/net.c \
	supervisor/handlers/exec.c \
	supervisor/handlers/proc.c \
	$(CW_TOOLS_SOURCES)
capwatch_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS) $(CJSON_CFLAGS)
capwatch_LDADD = policy/libcwpolicy.la $(SECCOMP_LIBS) $(CJSON_LIBS)
