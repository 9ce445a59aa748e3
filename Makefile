# lsim -- a discrete-event simulator of message-listener concurrency.
#
#   make            build build/lsim
#   make deps       install the Debian packages the build and the tests need
#   make run        run the seed scenario and print its summary
#   make test       every test (unit, golden, analytical, command line, layers)
#   make check-layers  no include or call up a layer, no two files using each
#                   other (tests/layers/layers.txt); make layers-doc redraws
#                   docs/LAYERS.md
#   make asan       the tests under AddressSanitizer + UBSan
#   make valgrind   a representative subset under valgrind (memcheck, leaks)
#   make cluster-tests  a sweep's plan on a single-node Slurm and over ssh (root)
#   make fuzz       libFuzzer on every target for FUZZ_SECONDS (default 60) each
#   make bench      lsim against the reference loops of BENCH_REF: the ratios
#                   and peak memory (BENCH_BEFORE=other/lsim adds its column;
#                   CIMBA=path/to/a/built/cimba/tree adds the cimba row)
#   make bench-tune lsim tune against the full grid (TUNE_SEEDS="1 2 3")
#   make bench-more the other benchmarks (events/s, messages/s, SimPy, sweeps)
#   make install    the binary, the man page and the bash completion under
#                   $(DESTDIR)$(PREFIX) (PREFIX=/usr/local by default)
#   make notebooks  execute the notebooks headless on fresh runs: HTML in output/
#                   (FIGDIR=docs/img also saves their main figures there)

# == settings: override on the command line ==
CC      = cc
# -O3: the engine's hot path (the calendar, the message calls, the
# statistics) about 9 % less time than -O2 on the M/M/8 benchmark (5 %
# fewer instructions).
OPT     = -O3 -g
# PGO=1: a profile-guided build (gcc only).  lsim is first built with
# counters, runs the benchmarks' scenarios (tests/bench/pgo_train.sh), and
# is then compiled again with what they counted: the branches laid out as
# they go, the hot calls inlined (M/M/8 about 5 % less time, SMLC about 8 %;
# docs/SPEED.md).  Code the training does not reach is compiled as without
# a profile.  A change to any source trains again.  PGO=0 builds once, for
# quicker turns while editing (objects it leaves are taken as they are by a
# later PGO=1 make until a source changes: make clean between the two for a
# clean measure); the sanitizer and fuzz builds never use it.
PGO    := $(shell $(CC) -v 2>&1 | grep -q '^gcc version' && echo 1 || echo 0)
# Link-time optimisation: the engine's small functions (levels, order
# tracking, the histogram) inline across files; about 7 % less time.
LTO     = -flto=auto
WARN    = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wformat=2 -Wundef -Wno-format-nonliteral
VERSION = 0.1.0
# HAVE_INLINE: GSL's headers define gsl_rng_uniform_pos and the like inline
# (the same code as the library's), a call less for each random draw.
CFLAGS  = -std=c11 -D_POSIX_C_SOURCE=200809L -pthread $(OPT) $(PGO_FLAGS) $(LTO) $(WARN) -MMD -MP \
          -DHAVE_INLINE -Isim -Imodels -DLSIM_VERSION='"$(VERSION)"'
LDFLAGS =
LDLIBS  = -lgsl -lgslcblas -lsqlite3 -lyaml -lrabbitmq -lm -pthread
PYTHON  = /usr/bin/python3
BUILD   = build
FIGDIR  =
PREFIX  = /usr/local
DESTDIR =
BENCH_REF    = ../shared/bench
TUNE_SEEDS   = 1
BENCH_BEFORE =
CIMBA        =
# == end of settings ==

# The profile-guided build (PGO above).  PGO=gen is the counting build the
# training runs, made in $(BUILD) itself: gcc names a static function's
# counts after the object's path, so the counting objects must have the
# paths of the final ones.  Their counts land beside them ($(BUILD)/sim/engine/x.gcda
# for $(BUILD)/sim/engine/x.o), where -fprofile-use reads them, and every object
# waits for the stamp, so the final ones are compiled after the training.
ifeq ($(PGO),1)
PGO_FLAGS = -fprofile-use -fprofile-partial-training -Wno-missing-profile
PGO_STAMP = $(BUILD)/pgo.stamp
else ifeq ($(PGO),gen)
PGO_FLAGS = -fprofile-generate -fprofile-update=prefer-atomic
endif

SIM_OBJ = sim/base/mem.o sim/input/config.o sim/input/config_print.o sim/input/units.o sim/input/scenario.o sim/engine/calendar.o sim/engine/random.o sim/engine/dist.o \
          sim/engine/stats.o sim/engine/order.o sim/base/names.o sim/engine/engine.o sim/engine/context.o sim/engine/message.o sim/engine/waiting.o sim/engine/summary.o sim/base/numfmt.o sim/store/timeline.o sim/store/timeline_insert.o sim/base/outpath.o sim/base/dbpath.o \
          sim/store/trace.o sim/store/workload_file.o sim/run/run.o sim/cli/cli.o sim/cli/commands.o sim/cli/cmd_run.o \
          sim/analysis/timeline_data.o sim/analysis/compare.o sim/analysis/compare_band.o sim/cli/cmd_compare.o sim/analysis/fit.o sim/analysis/fit_measure.o sim/analysis/fit_replay.o sim/analysis/fit_yaml.o sim/analysis/fit_tracemeta.o sim/analysis/fit_metacheck.o sim/analysis/fit_pool.o sim/cli/cmd_fit.o \
          sim/input/expr.o sim/sweep/sweep_spec.o sim/sweep/sweep_exec.o sim/base/stop_signals.o sim/base/shell_word.o sim/sweep/sweep_merge.o sim/sweep/sweep_answer.o sim/sweep/sweep_point.o sim/sweep/sweep_explain.o sim/sweep/sweep_floor.o sim/sweep/sweep_skip.o \
          sim/sweep/sweep_plan.o sim/sweep/plan_missing.o sim/sweep/plan_estimate.o \
          sim/sweep/plan_readme.o sim/sweep/plan_resume.o sim/sweep/sweep_parts.o sim/cli/cmd_sweep.o sim/cli/cmd_merge.o \
          sim/report/svg.o sim/report/plot.o sim/report/plot_timeline.o sim/report/plot_gantt.o sim/report/plot_groups.o sim/report/plot_sweep.o \
          sim/cli/cmd_plot.o sim/report/report.o sim/report/report_build.o sim/report/report_kinds.o sim/cli/cmd_report.o \
          sim/input/yaml_words.o models/spring_boot/spring_docs.o models/spring_boot/spring_props.o sim/cli/cmd_import.o sim/sweep/sweep_spring.o \
          sim/record/record_plan.o sim/record/record_amqp.o sim/record/record_publish.o sim/record/record_consume.o \
          sim/record/record_observe.o sim/record/record_log.o sim/cli/cmd_record.o \
          sim/cli/cli_opts.o sim/sweep/tune_store.o sim/sweep/tune_kn.o sim/sweep/tune_screen.o sim/sweep/tune_compass.o sim/sweep/tune_run.o sim/sweep/tune_print.o sim/sweep/tune_db.o sim/cli/cmd_tune.o
MDL_OBJ = models/world/registry.o models/world/world.o models/workload/workload.o models/workload/arrivals.o \
          models/workload/arrivals_replay.o models/workload/groups.o models/core/host.o models/plain/broker_pull.o \
          models/plain/container_competing.o models/core/java.o models/core/version.o models/spring_amqp/amqp_version.o models/rabbitmq/rabbitmq_config.o models/rabbitmq/broker_rabbitmq.o \
          models/core/listener_failures.o models/spring_amqp/container_smlc.o models/spring_amqp/smlc_scaling.o models/spring_amqp/smlc_config.o \
          models/spring_amqp/container_direct.o models/rabbitmq/container_pool.o models/activemq/activemq_groups.o models/activemq/activemq_window.o models/activemq/broker_activemq.o \
          models/activemq/broker_activemq_stats.o models/spring_jms/dmlc_config.o models/spring_jms/container_dmlc.o \
          models/spring_boot/spring_boot.o models/spring_boot/spring_result.o models/spring_boot/spring_rules.o models/spring_boot/spring_scenario.o models/spring_boot/container_origins.o \
          models/workload/workload_export.o
LIB_OBJ = $(addprefix $(BUILD)/,$(SIM_OBJ) $(MDL_OBJ))
MAIN_OBJ = $(BUILD)/sim/cli/main.o

UNIT_TESTS = test_calendar test_config test_stats test_order test_random test_trace \
             test_timeline test_seed_competing test_queueing test_determinism test_compare \
             test_sweep test_svg test_plot test_broker_rabbitmq test_container_smlc \
             test_container_direct test_trace_smlc test_activemq test_dmlc test_jms_traces \
             test_fingerprints test_plan test_engine_pins test_fit_measure test_rabbitmq_failures \
             test_spring test_waiting test_activemq_window test_list \
             test_trace_arrivals test_free_index test_stall test_container_pool test_names test_tune \
             test_mem test_numfmt
UNIT_BIN = $(addprefix $(BUILD)/tests/,$(UNIT_TESTS))

# clang and libclang-rt-14-dev (libFuzzer, clang's sanitizers: only recommended
# by clang) for make fuzz; valgrind for make valgrind; procps (pgrep) for the
# sweep tests; slurm-wlm, munge, openssh-server/-client and rsync for make
# cluster-tests; groff-base (the man page checked) for the help tests;
# chromium and python3-pil (headless page loads and screenshots) for the
# report tests.
DEBIAN_PACKAGES = build-essential pkg-config libgsl-dev libsqlite3-dev libyaml-dev librabbitmq-dev \
                  libcmocka-dev sqlite3 python3 python3-simpy valgrind time parallel procps \
                  slurm-wlm slurm-wlm-basic-plugins munge openssh-server openssh-client rsync \
                  groff-base \
                  clang libclang-rt-14-dev \
                  jupyter-nbconvert python3-ipykernel python3-pandas python3-matplotlib \
                  chromium python3-pil \
                  rabbitmq-server python3-pika \
                  openjdk-17-jdk-headless libactivemq-java libspring-jms-java libspring-core-java \
                  libspring-beans-java libspring-context-java libspring-transaction-java \
                  libgeronimo-jms-1.1-spec-java libgeronimo-j2ee-management-1.1-spec-java \
                  libhawtbuf-java libslf4j-java
SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)

FUZZ_TARGETS = fuzz_scenario fuzz_trace fuzz_set fuzz_vary fuzz_require fuzz_replay fuzz_spring \
               fuzz_compare fuzz_merge fuzz_plot fuzz_changes
FUZZ_SECONDS = 60
FUZZ_BIN = $(addprefix $(BUILD)/tests/fuzz/,$(FUZZ_TARGETS))
# UBSan must abort, or libFuzzer never hears of what it found.
FUZZ_SAN = -fsanitize=fuzzer-no-link,address,undefined,float-cast-overflow \
           -fno-sanitize-recover=all -fno-omit-frame-pointer

.PHONY: all deps install uninstall run test unit cli-tests cluster-tests live-tests fuzz-regressions asan valgrind \
        bench bench-tune bench-more notebooks fuzz clean check-layers layers-doc

all: $(BUILD)/lsim

$(BUILD)/%.o: %.c $(PGO_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/pgo.stamp: $(wildcard sim/*/*.c sim/*/*.h models/*/*.c models/*/*.h) tests/bench/pgo_train.sh
	rm -f $(LIB_OBJ:.o=.gcda) $(MAIN_OBJ:.o=.gcda)
	$(MAKE) -B PGO=gen $(BUILD)/lsim
	tests/bench/pgo_train.sh $(BUILD)/lsim $(BUILD)
	touch $@

$(BUILD)/liblsim.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# Programs are linked with the optimisation flags (link-time optimisation
# compiles there) but not -Werror: every file was already compiled with it,
# and the whole-program pass only adds maybe-uninitialized guesses about
# values read after a check the pass does not follow.
LINK = $(CC) $(OPT) $(PGO_FLAGS) $(LTO) $(if $(LTO),-Wno-maybe-uninitialized) $(LDFLAGS)

$(BUILD)/lsim: $(MAIN_OBJ) $(BUILD)/liblsim.a
	$(LINK) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/liblsim.a tests/unit/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -c -o $@.o $<
	$(LINK) -o $@ $@.o $(BUILD)/liblsim.a $(LDLIBS) -lcmocka

deps:
	$(SUDO) apt-get update
	$(SUDO) apt-get install -y --no-install-recommends $(DEBIAN_PACKAGES)

install: $(BUILD)/lsim
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	           $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 $(BUILD)/lsim $(DESTDIR)$(PREFIX)/bin/lsim
	install -m 644 docs/lsim.1 $(DESTDIR)$(PREFIX)/share/man/man1/lsim.1
	install -m 644 docs/lsim.bash-completion $(DESTDIR)$(PREFIX)/share/bash-completion/completions/lsim

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/lsim $(DESTDIR)$(PREFIX)/share/man/man1/lsim.1 \
	      $(DESTDIR)$(PREFIX)/share/bash-completion/completions/lsim

run: $(BUILD)/lsim
	$(BUILD)/lsim run scenarios/seed-competing-consumers.yaml

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

cli-tests: $(BUILD)/lsim
	tests/cli/run_all.sh $(BUILD)/lsim
	tests/cli/sweep.sh $(BUILD)/lsim
	tests/cli/sweep_skip.sh $(BUILD)/lsim
	tests/cli/plot_test.sh $(BUILD)/lsim
	tests/cli/plot_png.sh $(BUILD)/lsim
	tests/cli/summary_figures.sh $(BUILD)/lsim
	tests/cli/traces.sh $(BUILD)/lsim
	tests/cli/help.sh $(BUILD)/lsim
	tests/cli/readme_synopsis.sh $(BUILD)/lsim
	tests/cli/sweep_explain.sh $(BUILD)/lsim
	tests/cli/report.sh $(BUILD)/lsim
	tests/cli/long_runs.sh $(BUILD)/lsim
	tests/cli/replay.sh $(BUILD)/lsim
	tests/cli/replay_meta.sh $(BUILD)/lsim
	tests/cli/rabbitmq_failures.sh $(BUILD)/lsim
	tests/cli/spring.sh $(BUILD)/lsim
	tests/cli/hostile.sh $(BUILD)/lsim
	tests/cli/record.sh $(BUILD)/lsim
	tests/cli/tune.sh $(BUILD)/lsim
	tests/cli/live_harness.sh $(BUILD)/lsim

# A sweep's plan on a real cluster brought up by the tests: a single-node
# Slurm (munged, slurmctld, slurmd) and GNU parallel over ssh (sshd).  They
# need root; elsewhere they skip (exit 77), which passes here unless
# LSIM_CLUSTER_REQUIRED=1 (CI) makes a skip a failure.
CLUSTER_TESTS = tests/cli/slurm.sh tests/cli/ssh_parallel.sh
cluster-tests: $(BUILD)/lsim
	@set -e; for t in $(CLUSTER_TESTS); do \
	    $$t $(BUILD)/lsim || { rc=$$?; [ $$rc -eq 77 ] || exit $$rc; }; done

# The same scenarios on the real brokers and on lsim (tests/live/run_live.sh).
# The ActiveMQ half needs its Java recorder, built by tests/live/activemq/build.sh
# (exit 77: its jars are missing); without it only the RabbitMQ half runs.
live-tests: $(BUILD)/lsim
	@set -e; amq=""; \
	if [ -x tests/live/activemq/build.sh ]; then \
	    rc=0; tests/live/activemq/build.sh $(BUILD)/live || rc=$$?; \
	    if [ $$rc -eq 0 ]; then amq=$(BUILD)/live/amq-recorder; \
	    elif [ $$rc -eq 77 ]; then echo "live: ActiveMQ half skipped: no Java jars (make deps)"; \
	        [ "$${LSIM_LIVE_REQUIRED:-0}" != 1 ] || exit 1; \
	    else exit $$rc; fi; \
	else echo "live: ActiveMQ half skipped: no tests/live/activemq/build.sh yet"; fi; \
	AMQ_RECORDER=$$amq tests/live/run_live.sh $(BUILD)/lsim

# Every input in the fuzz corpora (seeds and the inputs that once broke a
# target) run through the targets, without libFuzzer.
$(BUILD)/tests/fuzz/%: tests/fuzz/%.c tests/fuzz/standalone.c $(BUILD)/liblsim.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@.o $<
	$(CC) $(CFLAGS) -c -o $@.standalone.o tests/fuzz/standalone.c
	$(LINK) -o $@ $@.o $@.standalone.o $(BUILD)/liblsim.a $(LDLIBS)

fuzz-regressions: $(FUZZ_BIN)
	@set -e; for t in $(FUZZ_TARGETS); do printf '%s: ' $$t; $(BUILD)/tests/fuzz/$$t tests/fuzz/corpus/$$t/*; done

test: all unit cli-tests fuzz-regressions check-layers

# The house in layers (tests/layers/layers.txt): every #include of sim/ and
# models/, and every call between their objects (nm), goes down a layer or
# stays in its folder, and no two files use each other.
check-layers: $(LIB_OBJ) $(MAIN_OBJ)
	$(PYTHON) tests/layers/check.py $(BUILD)

layers-doc: $(LIB_OBJ) $(MAIN_OBJ)
	$(PYTHON) tests/layers/check.py $(BUILD) --draw >docs/LAYERS.md

# GCC leaves float-cast-overflow out of "undefined": a double too large for
# its integer is asked for by name.
ASAN = -fsanitize=address,undefined,float-cast-overflow
asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g $(ASAN) -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	        LDFLAGS="$(ASAN)" LTO= PGO=0 test

valgrind: all $(UNIT_BIN)
	tests/cli/valgrind.sh $(BUILD)

# The reference loops are compiled from BENCH_REF at build time (never
# copied here), as its README says.
bench: $(BUILD)/lsim $(BUILD)/mmc_bare $(BUILD)/sqlite_ceiling $(if $(CIMBA),$(BUILD)/cimba_mmc)
	$(if $(CIMBA),BENCH_CIMBA='$(BUILD)/cimba_mmc 1000000 1 8 7.2 1') \
	    tests/bench/ratios.sh $(BUILD) $(BENCH_REF) $(BENCH_BEFORE)

# The M/M/8 of tests/bench/cimba_mmc.c on cimba 3, a C library of processes
# on coroutines, built beforehand in CIMBA (README, Speed).  The flags are
# the ones cimba's own benchmarks build with; its arguments above (1 M
# customers, 8 servers, lambda 7.2, mu 1) are those of ratios.sh's N and
# tests/bench/mm8.yaml: change them together.
$(BUILD)/cimba_mmc: tests/bench/cimba_mmc.c
	@mkdir -p $(dir $@)
	gcc -O3 -DNDEBUG -DNLOGINFO -std=c2x -include assert.h -include stdbool.h \
	    -I$(CIMBA)/include -I$(CIMBA)/src -o $@ $< -L$(CIMBA)/build/src -lcimba \
	    -Wl,-rpath,$(abspath $(CIMBA))/build/src -lm

# tune against the full grid (tests/bench/tune.sh): heavy, run it alone.
bench-tune: $(BUILD)/lsim
	tests/bench/tune.sh $(BUILD)/lsim "$(TUNE_SEEDS)"

bench-more: $(BUILD)/lsim $(BUILD)/bench
	tests/bench/run.sh $(BUILD) $(PYTHON)

$(BUILD)/mmc_bare: $(BENCH_REF)/mmc_bare.c
	@mkdir -p $(dir $@)
	gcc -O2 -o $@ $< -lsqlite3 -lm

$(BUILD)/sqlite_ceiling: $(BENCH_REF)/sqlite_ceiling.c
	@mkdir -p $(dir $@)
	gcc -O2 -o $@ $< -lsqlite3

# libFuzzer (clang) on each target for FUZZ_SECONDS, with ASan and UBSan,
# starting from the corpora in tests/fuzz/corpus (new finds go to build-fuzz/).
fuzz:
	$(MAKE) BUILD=build-fuzz CC=clang WARN="-Wall -Wextra -Werror -Wno-unused-command-line-argument" \
	        OPT="-g -O1 $(FUZZ_SAN)" LTO= PGO=0 \
	        build-fuzz/liblsim.a
	@set -e; for t in $(FUZZ_TARGETS); do \
	    clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Isim -Imodels \
	        $(subst fuzzer-no-link,fuzzer,$(FUZZ_SAN)) -o build-fuzz/$$t tests/fuzz/$$t.c \
	        build-fuzz/liblsim.a $(LDLIBS); \
	    mkdir -p build-fuzz/corpus/$$t; \
	    echo "== $$t for $(FUZZ_SECONDS) s"; \
	    if ! build-fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	        -print_final_stats=1 -artifact_prefix=build-fuzz/$$t- \
	        build-fuzz/corpus/$$t tests/fuzz/corpus/$$t >build-fuzz/$$t.log 2>&1; then \
	        tail -n 40 build-fuzz/$$t.log; echo "$$t: FOUND A PROBLEM (input in build-fuzz/$$t-*)"; exit 1; \
	    fi; \
	    grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|Done' build-fuzz/$$t.log; \
	done

notebooks: $(BUILD)/lsim
	tests/notebooks/run_notebooks.sh $(BUILD)/lsim output $(FIGDIR)

clean:
	rm -rf build build-asan build-fuzz

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d)

$(BUILD)/bench: tests/bench/bench.c $(BUILD)/liblsim.a
	$(CC) $(CFLAGS) -c -o $@.o $<
	$(LINK) -o $@ $@.o $(BUILD)/liblsim.a $(LDLIBS)
