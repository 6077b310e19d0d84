# Subcommands over traces (replay, explain, learn, diff, export, profiles)
# are linked into the capwatch binary (supervisor/local.mk uses this list).
CW_TOOLS_SOURCES = tools/tools.h tools/pending.c

# Helper scripts:
dist_noinst_SCRIPTS += tools/install-deps
