# fuzz/diff/: the differential fuzzer (docs/difffuzz.md). One client object, linked here
# against libshimrt and by tests/torch/diff_fuzz.sh against PyTorch's libtorch_cpu.so.
#   make fuzz-diff SEEDS="1 2 3" DIFF_CALLS=20000   long runs (both sides, then compare)
DIFF_DIR    := $(BUILD)/diff
DIFF_OBJ    := $(DIFF_DIR)/diff_client.o
DIFF_SHIMRT := $(DIFF_DIR)/diff_shimrt
DIFF_LDLIBS := -lffi -ldl -lm

$(DIFF_OBJ): fuzz/diff/diff_client.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_COMMON) $(CPPFLAGS) $(CFLAGS_COMMON) $(CFLAGS) -c $< -o $@
# The schema parser is shimgen's own (LIBSGSCHEMA, gen/schema/), linked statically into the client.
$(DIFF_SHIMRT): $(DIFF_OBJ) $(LIBSGSCHEMA) $(LIBSHIMRT_SO)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $(DIFF_OBJ) $(LIBSGSCHEMA) \
	  -L$(BUILD) -lshimrt -Wl,-rpath,$(abspath $(BUILD)) $(DIFF_LDLIBS)
test-build: $(DIFF_SHIMRT) $(DIFF_OBJ)

SEEDS      ?= 1 2 3 4
DIFF_CALLS ?= 25000
.PHONY: fuzz-diff
fuzz-diff: $(DIFF_SHIMRT) $(DIFF_OBJ) $(LIBSGSCHEMA)
	DIFF_SEEDS="$(SEEDS)" DIFF_CALLS=$(DIFF_CALLS) DIFF_KEEP=$(DIFF_DIR)/runs \
	  BUILD=$(BUILD) CC="$(CC)" sh tests/torch/diff_fuzz.sh
