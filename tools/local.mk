# Subcommands over traces (replay, explain, learn, diff, export, profiles)
# are linked into the capwatch binary (supervisor/local.mk uses this list).
CW_TOOLS_SOURCES = tools/tools.h tools/common.h tools/common.c \
	tools/replay.c tools/explain.c tools/learn.c tools/diff.c \
	tools/export.c tools/profiles.c

# Helper scripts:
dist_noinst_SCRIPTS += tools/install-deps
