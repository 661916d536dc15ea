# shimgen: top-level build.
# Each component keeps its own rules beside its code; this file holds only what they share.
#   gen/gen.mk          libshimgen.a and the shimgen binary
#   runtime/runtime.mk  libshimrt.{a,so}, shimrt.pc, install
#   tests/tests.mk      Criterion suites, script checks, the `check` target
#   bench/bench.mk      `make bench`
#   fuzz/fuzz.mk        `make fuzz` (libFuzzer, clang)
#   examples/examples.mk the demo and the custom-op example
.DEFAULT_GOAL := all
.SUFFIXES:
.DELETE_ON_ERROR:
# Keep re2c output and other intermediates (they are build products under $(BUILD)).
.SECONDARY:
SHELL := /bin/sh

PREFIX  ?= /usr/local
DESTDIR ?=
# SAN=1 builds everything with AddressSanitizer and UndefinedBehaviorSanitizer in build/asan.
SAN     ?=
ifeq ($(SAN),1)
BUILD   ?= build/asan
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
BUILD   ?= build
SANFLAGS :=
endif
# PyTorch's operator data, the largest real input of the schema format: the torch 2.15 wheel's
# native_functions.yaml, tags.yaml, op list and shipped headers, in the folder that
# .ci/pytorch-data prints (made once beside the cached venv). `check` and `bench` make it and
# pass it down; empty when PyTorch cannot be had, and the checks that need it then skip.
SHARED  ?=
export SHIMGEN_SHARED := $(SHARED)
PYTORCH_DATA := d=$$(sh .ci/pytorch-data) || d=

RE2C    ?= re2c
CLANG   ?= clang
OPT     ?= -O2 -g
CPPFLAGS_COMMON := -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Igen -Igen/schema -Iruntime/include -Igenerated
CFLAGS_COMMON   := -std=c11 -Wall -Wextra -Werror $(OPT) $(SANFLAGS) -fPIC -fvisibility=hidden -MMD -MP
LDFLAGS_COMMON  := $(SANFLAGS)
LDLIBS_COMMON   := -lpthread -ldl -lm

# Every build step waits for the Debian packages it needs (installed once, if missing).
DEPS_STAMP := build/.deps-ok
$(DEPS_STAMP): .ci/deps
	@mkdir -p $(dir $@)
	@sh .ci/deps
	@touch $@

# One compile rule for hand-written C, one for C made during the build (re2c output).
$(BUILD)/obj/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_COMMON) $(CPPFLAGS) $(CFLAGS_COMMON) $(CFLAGS) -c $< -o $@
$(BUILD)/obj/%.o: $(BUILD)/src/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_COMMON) $(CPPFLAGS) $(CFLAGS_COMMON) $(CFLAGS) -c $< -o $@

# Filled by the component files. CHECK_BUILD: what the steps of `check` run, built first
# with one job per core; CHECK_STEPS: the steps, run one after another.
CHECK_BUILD :=
CHECK_STEPS :=
BENCH_STEPS :=
FUZZ_STEPS  :=
INSTALL_STEPS :=
UNINSTALL_STEPS :=

include gen/gen.mk
include runtime/runtime.mk
include tests/tests.mk
include bench/bench.mk
include fuzz/fuzz.mk
include examples/examples.mk

.PHONY: all check bench fuzz install uninstall clean demo
all: $(ALL_TARGETS)
# `make check`: the packages, then every build it needs in parallel (CHECK_JOBS jobs, one per
# core unless -j is given), then each step alone (a step uses the cores as it sees fit, and
# its output stays in one piece), then one summary line.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check:
	@$(MAKE) --no-print-directory $(DEPS_STAMP)
	@$(PYTORCH_DATA); \
	  $(MAKE) --no-print-directory SHARED="$$d" $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS)) $(CHECK_BUILD) && \
	  for s in $(CHECK_STEPS); do $(MAKE) --no-print-directory SHARED="$$d" $$s || exit 1; done
	@$(MAKE) --no-print-directory test-summary
bench:
	@$(PYTORCH_DATA); $(MAKE) --no-print-directory SHARED="$$d" $(BENCH_STEPS)
fuzz:
	@$(PYTORCH_DATA); $(MAKE) --no-print-directory SHARED="$$d" $(FUZZ_STEPS)
install: $(INSTALL_STEPS)
uninstall: $(UNINSTALL_STEPS)
clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
