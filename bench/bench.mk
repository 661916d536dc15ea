# bench/: `make bench` prints tables of measured times. Never asserted in tests.
#   bench/gen_*.c  programs linked with libshimgen.a
#   bench/rt_*.c   programs linked with libshimrt.a
# Each program prints its own table rows; run from the repository root.
BENCH_GEN := $(patsubst bench/%.c,$(BUILD)/bench/%,$(sort $(wildcard bench/gen_*.c)))
BENCH_RT  := $(patsubst bench/%.c,$(BUILD)/bench/%,$(sort $(wildcard bench/rt_*.c)))

$(BUILD)/bench/gen_%: $(BUILD)/obj/bench/gen_%.o $(GEN_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $^ $(GEN_LDLIBS)
$(BUILD)/bench/rt_%: $(BUILD)/obj/bench/rt_%.o $(LIBSHIMRT_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $^ $(RT_LDLIBS)

.PHONY: bench-run
bench-run: $(BENCH_GEN) $(BENCH_RT) $(SHIMGEN)
	@set -e; for b in $(BENCH_GEN) $(BENCH_RT); do ./$$b; done
BENCH_STEPS += bench-run

# The engine against PyTorch 2.15: one stable-ABI client, both libraries (bench/engine/).
.PHONY: bench-engine
bench-engine: $(LIBSHIMRT_A)
	@BUILD=$(BUILD) CC="$(CC)" RT_LDLIBS="$(RT_LDLIBS)" sh bench/engine/run.sh
BENCH_STEPS += bench-engine

# AOTInductor packages: shimrt-run vs PyTorch's own loader, per zoo model (bench/aoti/).
.PHONY: bench-aoti
bench-aoti: $(SHIMRT_RUN)
	@BUILD=$(BUILD) sh bench/aoti/run.sh
BENCH_STEPS += bench-aoti

# libshimrt through ctypes beside PyTorch 2.15 in one process, at 1 and 2 threads
# (bench/common/run.sh NAME runs bench/NAME/bench.py): fft: _fft_r2c / _fft_c2c (kissfft);
# dynquant: _dyn_quant_matmul_4bit on PyTorch's packed weights; linalg: cholesky_solve,
# cholesky_inverse, triangular_solve, geqrf, ormqr, lu_unpack (OpenBLAS's LAPACK);
# int8: _weight_int8pack_mm, _int_mm.out, _scaled_mm (float8).
BENCH_PY := fft dynquant linalg int8

# The CUDA backend beside PyTorch's on one GPU (bench/cuda/bench.py; prints why it skips on a
# machine without one, as in CI). Also step 4 of `make check-gpu`.
.PHONY: bench-cuda
bench-cuda: $(LIBSHIMRT_SO)
	@$$(.ci/torch-env) bench/cuda/bench.py $(LIBSHIMRT_SO)
BENCH_STEPS += bench-cuda
.PHONY: $(BENCH_PY:%=bench-%)
$(BENCH_PY:%=bench-%): bench-%: $(LIBSHIMRT_SO)
	@BUILD=$(BUILD) sh bench/common/run.sh $*
BENCH_STEPS += $(BENCH_PY:%=bench-%)
