# tests/: every suite and check that `make check` runs.
#   tests/gen/test_*.c      Criterion suites linked with libshimgen.a
#   tests/runtime/test_*.c  Criterion suites linked with libshimrt.a
#   tests/scripts/*.sh      shell checks, run from the repository root with SHIMGEN, BUILD,
#                           SHARED, CC in the environment; exit 0 means pass
# Test programs run from the repository root; PyTorch's data is in $SHIMGEN_SHARED/pytorch.
GEN_TESTS    := $(patsubst tests/%.c,$(BUILD)/tests/%,$(sort $(wildcard tests/gen/test_*.c)))
RT_TESTS     := $(patsubst tests/%.c,$(BUILD)/tests/%,$(sort $(wildcard tests/runtime/test_*.c)))
TEST_SCRIPTS := $(sort $(wildcard tests/scripts/*.sh))

$(BUILD)/tests/gen/%: $(BUILD)/obj/tests/gen/%.o $(LIBSHIMGEN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $^ -lcriterion $(GEN_LDLIBS)
$(BUILD)/tests/runtime/%: $(BUILD)/obj/tests/runtime/%.o $(LIBSHIMRT_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $^ -lcriterion $(RT_LDLIBS)

.PHONY: test-unit test-scripts test-asan
test-unit: $(GEN_TESTS) $(RT_TESTS)
	@set -e; for t in $(GEN_TESTS) $(RT_TESTS); do echo "== $$t"; ./$$t --jobs=2; done
test-scripts: $(ALL_TARGETS) $(GEN_TESTS) $(RT_TESTS)
	@set -e; for s in $(TEST_SCRIPTS); do echo "== $$s"; \
	  SHIMGEN=$(SHIMGEN) BUILD=$(BUILD) SHARED=$(SHARED) CC="$(CC)" SAN="$(SAN)" sh $$s; done
# The same suites and scripts again under AddressSanitizer and UndefinedBehaviorSanitizer.
test-asan:
	@$(MAKE) --no-print-directory SAN=1 BUILD=$(BUILD)/asan test-unit test-scripts

CHECK_STEPS += test-unit test-scripts test-asan
