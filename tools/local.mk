# Subcommands over traces (replay, explain, learn, diff, export) are linked
# into the capwatch binary; see supervisor/local.mk. Helper scripts:
dist_noinst_SCRIPTS += tools/install-deps
