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

# FFT: libshimrt's _fft_r2c / _fft_c2c (kissfft) beside PyTorch's (bench/fft/).
.PHONY: bench-fft
bench-fft: $(LIBSHIMRT_SO)
	@BUILD=$(BUILD) sh bench/fft/run.sh
BENCH_STEPS += bench-fft

# 4-bit matmul: libshimrt's _dyn_quant_matmul_4bit beside PyTorch's (bench/dynquant/).
.PHONY: bench-dynquant
bench-dynquant: $(LIBSHIMRT_SO)
	@BUILD=$(BUILD) sh bench/dynquant/run.sh
BENCH_STEPS += bench-dynquant
