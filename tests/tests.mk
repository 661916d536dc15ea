# tests/: every suite and check that `make check` runs.
#   tests/gen/test_*.c      Criterion suites linked with libshimgen.a
#   tests/runtime/test_*.c  Criterion suites linked with libshimrt.a
#   tests/scripts/*.sh, tests/torch/*.sh (real PyTorch 2.15 through .ci/torch-env)
#                           shell checks, run from the repository root with SHIMGEN, BUILD,
#                           SHARED, CC, SAN in the environment; exit 0 means pass, 77 that
#                           the check does not apply to this pass (counted as skipped)
# Test programs run from the repository root; PyTorch's data is in $SHIMGEN_SHARED/pytorch.
GEN_TESTS    := $(patsubst tests/%.c,$(BUILD)/tests/%,$(sort $(wildcard tests/gen/test_*.c)))
RT_TESTS     := $(patsubst tests/%.c,$(BUILD)/tests/%,$(sort $(wildcard tests/runtime/test_*.c)))
# tests/cuda/test_*.c: the CUDA backend's Criterion suites (linked like the runtime's).
RT_TESTS     += $(patsubst tests/%.c,$(BUILD)/tests/%,$(sort $(wildcard tests/cuda/test_*.c)))
TEST_SCRIPTS := $(sort $(wildcard tests/scripts/*.sh)) $(sort $(wildcard tests/torch/*.sh))
# tests/pipeline/*.sh: shimgen inside build pipelines (make, ninja, kills, stale outputs).
TEST_SCRIPTS += $(sort $(wildcard tests/pipeline/*.sh))

$(BUILD)/tests/gen/%: $(BUILD)/obj/tests/gen/%.o $(GEN_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $^ -lcriterion $(GEN_LDLIBS)
$(BUILD)/tests/runtime/%: $(BUILD)/obj/tests/runtime/%.o $(LIBSHIMRT_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $^ -lcriterion $(RT_LDLIBS)
$(BUILD)/tests/cuda/%: $(BUILD)/obj/tests/cuda/%.o $(LIBSHIMRT_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $^ -lcriterion $(RT_LDLIBS)
# The fake driver (tests/cuda/fake_cuda.c) that test_cuda_fake loads through SHIMRT_LIBCUDA.
$(BUILD)/tests/cuda/libfakecuda.so: tests/cuda/fake_cuda.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -O1 -g -fPIC -shared $(SANFLAGS) -o $@ $<
# The same with the grid emulator inside: kernels "run" on the fake GPU (test_cuda_ops).
$(BUILD)/tests/cuda/libfakecuda_emu.so: tests/cuda/fake_cuda.c tests/cuda/sh_emu.c tests/cuda/sh_emu.h $(BUILD)/tests/cuda/emu_kernels.c
	$(CC) -DFAKE_EMU -Iruntime/include -Itests/cuda -std=gnu11 -Wall -Wextra -Werror -Wno-type-limits -fwrapv -O1 -g -fPIC -shared $(SANFLAGS) -o $@ $(filter %.c,$^) -lpthread -lm
# A fake cuBLAS computing on the host (the fake driver's device memory is host memory).
$(BUILD)/tests/cuda/libfakecublas.so: tests/cuda/fake_cublas.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -O1 -g -fPIC -shared $(SANFLAGS) -o $@ $< -lm
$(BUILD)/tests/cuda/test_cuda_ops: $(BUILD)/obj/tests/cuda/test_cuda_ops.o $(LIBSHIMRT_A) $(BUILD)/tests/cuda/libfakecuda_emu.so $(BUILD)/tests/cuda/libfakecublas.so
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -rdynamic -o $@ $(filter %.o %.a,$^) -lcriterion $(RT_LDLIBS)
# The composite kernels on CUDA tensors, the fake driver in its guard mode (no cuBLAS).
$(BUILD)/tests/cuda/test_cuda_composite: $(BUILD)/obj/tests/cuda/test_cuda_composite.o $(LIBSHIMRT_A) $(BUILD)/tests/cuda/libfakecuda_emu.so
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -rdynamic -o $@ $(filter %.o %.a,$^) -lcriterion $(RT_LDLIBS)
# Ops from several threads on both fake devices (the emulator runs the kernels).
$(BUILD)/tests/cuda/test_cuda_threads: $(BUILD)/obj/tests/cuda/test_cuda_threads.o $(LIBSHIMRT_A) $(BUILD)/tests/cuda/libfakecuda_emu.so
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -rdynamic -o $@ $(filter %.o %.a,$^) -lcriterion $(RT_LDLIBS)
# Fake NVRTCs 12 and 13 (tests/cuda/fake_nvrtc.c) for the loader's choice by driver version.
$(BUILD)/tests/cuda/nvrtc/libnvrtc.so.%: tests/cuda/fake_nvrtc.c
	@mkdir -p $(dir $@)
	$(CC) -DFAKE_NVRTC_MAJOR=$* -std=gnu11 -Wall -Wextra -Werror -O1 -fPIC -shared $(SANFLAGS) -o $@ $<
$(BUILD)/tests/cuda/test_cuda_fake: $(BUILD)/obj/tests/cuda/test_cuda_fake.o $(LIBSHIMRT_A) $(BUILD)/tests/cuda/libfakecuda.so $(BUILD)/tests/cuda/nvrtc/libnvrtc.so.12 $(BUILD)/tests/cuda/nvrtc/libnvrtc.so.13
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) -lcriterion $(RT_LDLIBS)
# The grid emulator's suite: every CUDA kernel source, compiled as C (gnu11: statement
# expressions for the emulated shuffles) by emu_gen from the catalogue, run on the CPU.
$(BUILD)/tests/cuda/emu_gen: $(BUILD)/obj/tests/cuda/emu_gen.o $(LIBSHIMRT_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $^ $(RT_LDLIBS)
$(BUILD)/tests/cuda/emu_kernels.c: $(BUILD)/tests/cuda/emu_gen
	./$< $@
$(BUILD)/obj/tests/cuda/emu_kernels.o: $(BUILD)/tests/cuda/emu_kernels.c tests/cuda/sh_emu.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_COMMON) -Itests/cuda $(CPPFLAGS) $(filter-out -std=c11 -MMD -MP,$(CFLAGS_COMMON)) -std=gnu11 -Wno-type-limits -fwrapv $(CFLAGS) -c $< -o $@
$(BUILD)/tests/cuda/test_emu: $(BUILD)/obj/tests/cuda/test_emu.o $(BUILD)/obj/tests/cuda/sh_emu.o $(BUILD)/obj/tests/cuda/emu_kernels.o $(LIBSHIMRT_A)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -rdynamic -o $@ $^ -lcriterion $(RT_LDLIBS)

.PHONY: test-unit test-scripts test-asan test-build test-build-asan
# Everything the two passes run (built in parallel by `check` before any test starts).
test-build: $(ALL_TARGETS) $(GEN_TESTS) $(RT_TESTS)
test-build-asan:
	@$(MAKE) --no-print-directory SAN=1 BUILD=$(BUILD)/asan test-build
# Each suite's and script's output is kept in $(BUILD)/results/ for the summary of `check`.
test-unit: $(GEN_TESTS) $(RT_TESTS)
	@mkdir -p $(BUILD)/results; rm -f $(BUILD)/results/*.suite
	@set -e; for t in $(GEN_TESTS) $(RT_TESTS); do echo "== $$t"; \
	  log=$(BUILD)/results/$$(basename $$t).suite; rc=0; ./$$t --jobs=2 >$$log 2>&1 || rc=$$?; \
	  cat $$log; [ $$rc -eq 0 ]; done
test-scripts: $(ALL_TARGETS) $(GEN_TESTS) $(RT_TESTS)
	@mkdir -p $(BUILD)/results; rm -f $(BUILD)/results/*.script $(BUILD)/results/*.skip
	@for s in $(TEST_SCRIPTS); do echo "== $$s"; rc=0; \
	  SHIMGEN=$(SHIMGEN) BUILD=$(BUILD) SHARED=$(SHARED) CC="$(CC)" SAN="$(SAN)" RT_LDLIBS="$(RT_LDLIBS)" sh $$s || rc=$$?; \
	  r=$(BUILD)/results/$$(basename $$s .sh); \
	  case $$rc in 0) echo "$$s" >$$r.script;; 77) echo "$$s" >$$r.skip;; *) exit 1;; esac; done
# One closing line over both passes: Criterion tests plus script checks.
.PHONY: test-summary
test-summary:
	@cat $(BUILD)/results/*.suite $(BUILD)/asan/results/*.suite 2>/dev/null | \
	  sed -n 's/.*Synthesis: Tested: *\([0-9]*\) *| *Passing: *\([0-9]*\) *| *Failing: *\([0-9]*\) *| *Crashing: *\([0-9]*\).*/\2 \3 \4/p' | \
	  { p=0; f=0; while read a b c; do p=$$((p + a)); f=$$((f + b + c)); done; \
	    s=$$(ls $(BUILD)/results/*.script $(BUILD)/asan/results/*.script 2>/dev/null | wc -l); \
	    k=$$(ls $(BUILD)/results/*.skip $(BUILD)/asan/results/*.skip 2>/dev/null | wc -l); \
	    echo "check: $$((p + s)) passed, $$f failed, $$k skipped"; }
# The same suites and scripts again under AddressSanitizer and UndefinedBehaviorSanitizer.
test-asan:
	@$(MAKE) --no-print-directory SAN=1 BUILD=$(BUILD)/asan test-unit test-scripts

CHECK_BUILD += test-build test-build-asan
CHECK_STEPS += test-unit test-scripts test-asan

# `make check-torch-compat`: --target=torch output in the oldest PyTorch it supports (2.10),
# from a second cached venv (`.ci/torch-env 2.10.0`, about 5 GB, installed on first use).
# Not part of `make check` (CI's budget has no room for a second PyTorch); exit 77 from the
# script (SHIMGEN_TORCH=skip) is reported as skipped.
.PHONY: check-torch-compat
check-torch-compat: $(SHIMGEN)
	@rc=0; SHIMGEN=$(SHIMGEN) CC="$(CC)" sh tests/torch_compat/torch_2_10.sh || rc=$$?; \
	  case $$rc in 0) echo "check-torch-compat: passed";; \
	    77) echo "check-torch-compat: skipped";; *) exit 1;; esac

# `make check-gpu`: the CUDA op suite on a real GPU and the CUDA bench (one shot, about 9
# minutes on one H100/H200; tests/scripts/cuda_check_gpu.sh says what it runs). Exits 77
# with the reason when the machine has no GPU. Not part of `make check`.
.PHONY: check-gpu
check-gpu: $(BUILD)/tests/cuda/test_cuda_ops $(BUILD)/bench/rt_cuda_jit $(SHIMRT_JIT) $(LIBSHIMRT_SO) \
  $(SHIMRT_RUN) $(LIBSHIMRT_CUDART_SO)
	@SHIMRT_CHECK_GPU=1 BUILD=$(BUILD) sh tests/scripts/cuda_check_gpu.sh
