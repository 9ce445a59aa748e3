# lsim -- a discrete-event simulator of message-listener concurrency.
#
#   make            build build/lsim
#   make deps       install the Debian packages the build and the tests need
#   make run        run the seed scenario and print its summary
#   make test       every test (unit, golden, analytical, command line)
#   make asan       the tests under AddressSanitizer + UBSan
#   make bench      the benchmarks (events/s, messages/s, peak memory)

# == settings: override on the command line ==
CC      = cc
OPT     = -O2 -g
WARN    = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wformat=2 -Wundef -Wno-format-nonliteral
VERSION = 0.1.0
CFLAGS  = -std=c11 -D_POSIX_C_SOURCE=200809L -pthread $(OPT) $(WARN) -MMD -MP \
          -Isim -Imodels -DLSIM_VERSION='"$(VERSION)"'
LDFLAGS =
LDLIBS  = -lgsl -lgslcblas -lsqlite3 -lyaml -lm -pthread
PYTHON  = /usr/bin/python3
BUILD   = build
# == end of settings ==

SIM_OBJ = sim/mem.o sim/config.o sim/scenario.o sim/calendar.o sim/random.o sim/dist.o \
          sim/stats.o sim/order.o sim/engine.o sim/message.o sim/summary.o sim/timeline.o \
          sim/trace.o sim/workload_file.o sim/run.o sim/cli.o sim/cmd_run.o
MDL_OBJ = models/registry.o models/world.o models/workload.o models/arrivals.o \
          models/arrivals_replay.o models/groups.o models/host.o models/broker_pull.o \
          models/container_competing.o models/activemq_groups.o models/broker_activemq.o \
          models/broker_activemq_stats.o models/dmlc_config.o models/container_dmlc.o
LIB_OBJ = $(addprefix $(BUILD)/,$(SIM_OBJ) $(MDL_OBJ))
MAIN_OBJ = $(BUILD)/sim/main.o

UNIT_TESTS = test_calendar test_config test_stats test_order test_random test_trace \
             test_timeline test_seed_competing test_queueing test_determinism \
             test_activemq test_dmlc test_jms_traces
UNIT_BIN = $(addprefix $(BUILD)/tests/,$(UNIT_TESTS))

DEBIAN_PACKAGES = build-essential pkg-config libgsl-dev libsqlite3-dev libyaml-dev \
                  libcmocka-dev sqlite3 python3 python3-simpy valgrind
SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps run test unit cli-tests asan bench clean

all: $(BUILD)/lsim

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/liblsim.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/lsim: $(MAIN_OBJ) $(BUILD)/liblsim.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/liblsim.a tests/unit/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(BUILD)/liblsim.a $(LDLIBS) -lcmocka

deps:
	$(SUDO) apt-get update
	$(SUDO) apt-get install -y --no-install-recommends $(DEBIAN_PACKAGES)

run: $(BUILD)/lsim
	$(BUILD)/lsim run scenarios/seed-competing-consumers.yaml

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

cli-tests: $(BUILD)/lsim
	tests/cli/run_all.sh $(BUILD)/lsim

test: all unit cli-tests

asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	        LDFLAGS="-fsanitize=address,undefined" test

bench: $(BUILD)/lsim $(BUILD)/bench
	tests/bench/run.sh $(BUILD) $(PYTHON)

clean:
	rm -rf build build-asan

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d)

$(BUILD)/bench: tests/bench/bench.c $(BUILD)/liblsim.a
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/liblsim.a $(LDLIBS)
