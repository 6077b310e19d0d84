# The capwatch binary: CLI, launcher, seccomp listener, ptrace tracker,
# handlers, report and trace writers, plus the trace tools of tools/.
bin_PROGRAMS += capwatch
capwatch_SOURCES = \
	supervisor/main.c \
	$(CW_TOOLS_SOURCES)
capwatch_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS) $(CJSON_CFLAGS)
capwatch_LDADD = policy/libcwpolicy.la $(SECCOMP_LIBS) $(CJSON_LIBS)
