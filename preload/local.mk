# libcapwatch-preload.so (issue 5): the advisory context layer, injected by
# the supervisor with LD_PRELOAD into every dynamically linked process of the
# tree. A libtool module: no version, no static archive, and only the
# wrapped functions exported (-fvisibility=hidden, EXPORT in preload.c).
pkglib_LTLIBRARIES += preload/libcapwatch-preload.la
preload_libcapwatch_preload_la_SOURCES = preload/preload.c preload/proto.h
preload_libcapwatch_preload_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(UNWIND_CFLAGS)
preload_libcapwatch_preload_la_LDFLAGS = -module -avoid-version -shared -no-undefined
# libunwind is not linked in: preload.c dlopen()s it on the first full
# backtrace (UNWIND_CFLAGS stays, for its header's types and names), so a
# process that takes none does not load libunwind and liblzma.
preload_libcapwatch_preload_la_LIBADD = -ldl

# Where the supervisor finds the installed library (a build-tree copy next
# to the capwatch binary is preferred, see supervisor/annot.c).
AM_CPPFLAGS += -DCW_PKGLIBDIR='"$(pkglibdir)"'
