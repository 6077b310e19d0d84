# The benchmark suite (issue 8). Not part of `make check`: it takes minutes
# and its numbers mean something only on a quiet machine.
#   make bench        5 interleaved rounds of every workload in every mode,
#                     the micro-benchmarks and two scale runs (10,000
#                     processes; 1,000,000 opens)
#   make bench-quick  one round at small sizes: proves the harness works
# Extra driver flags: make bench BENCH_FLAGS='--rounds 7 --only exec,open'
# Results: tests/bench/results{,-quick}/results.{md,json} in the build tree.
CWB_HELPERS = tests/bench/cwb_run tests/bench/cwb_work tests/bench/cwb_floor tests/bench/cwb_hwm.so \
	tests/bench/cwb_syncwake.so
EXTRA_DIST += tests/bench/bench.py tests/bench/gen_cproject.py tests/bench/mix.sh \
	tests/bench/cwb_run.c tests/bench/cwb_work.c tests/bench/cwb_floor.c tests/bench/cwb_hwm.c \
	tests/bench/cwb_syncwake.c \
	tests/bench/RESULTS.md
CLEANFILES += $(CWB_HELPERS)

tests/bench/cwb_run: $(srcdir)/tests/bench/cwb_run.c
	@$(MKDIR_P) tests/bench
	$(AM_V_CC)$(CC) $(AM_CFLAGS) $(CFLAGS) -o $@ $(srcdir)/tests/bench/cwb_run.c
tests/bench/cwb_work: $(srcdir)/tests/bench/cwb_work.c
	@$(MKDIR_P) tests/bench
	$(AM_V_CC)$(CC) $(AM_CFLAGS) $(CFLAGS) -o $@ $(srcdir)/tests/bench/cwb_work.c
tests/bench/cwb_floor: $(srcdir)/tests/bench/cwb_floor.c
	@$(MKDIR_P) tests/bench
	$(AM_V_CC)$(CC) $(AM_CFLAGS) $(CFLAGS) -pthread -o $@ $(srcdir)/tests/bench/cwb_floor.c
tests/bench/cwb_hwm.so: $(srcdir)/tests/bench/cwb_hwm.c
	@$(MKDIR_P) tests/bench
	$(AM_V_CC)$(CC) $(AM_CFLAGS) $(CFLAGS) -shared -fPIC -o $@ $(srcdir)/tests/bench/cwb_hwm.c
tests/bench/cwb_syncwake.so: $(srcdir)/tests/bench/cwb_syncwake.c
	@$(MKDIR_P) tests/bench
	$(AM_V_CC)$(CC) $(AM_CFLAGS) $(CFLAGS) -shared -fPIC -o $@ $(srcdir)/tests/bench/cwb_syncwake.c -ldl

CWB_DRIVER = $(PYTHON3) $(srcdir)/tests/bench/bench.py --capwatch ./capwatch \
	--helpers tests/bench --srcdir $(srcdir)

bench: all $(CWB_HELPERS)
	$(CWB_DRIVER) --scale --out tests/bench/results $(BENCH_FLAGS)
bench-quick: all $(CWB_HELPERS)
	$(CWB_DRIVER) --quick --scale --out tests/bench/results-quick $(BENCH_FLAGS)
.PHONY: bench bench-quick
