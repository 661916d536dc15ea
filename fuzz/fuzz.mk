# fuzz/: libFuzzer harnesses (clang). `make fuzz` runs all three at once for FUZZ_SECONDS.
#   fuzz/fuzz_schema.c  the schema grammar: parse, print, re-parse, print again (same text)
#   fuzz/schema.dict    its dictionary (type names, annotations, defaults)
#   fuzz/fuzz_yaml.c    the YAML loader through gen/shimgen.h (load, finalize, free)
#   fuzz/fuzz_dispatch.c random stacks through torch_call_dispatcher for every registered op
#   fuzz/diff/          the differential fuzzer against libtorch (`make fuzz-diff`, docs/difffuzz.md)
# Fuzz builds compile the gen/ sources again with clang into $(FUZZ_DIR) (never the gcc
# objects). Seeds come from PyTorch's native_functions.yaml: one file per `func:` string
# for the schema harness, chunks of whole entries for the YAML harness. New inputs go to
# $(FUZZ_DIR)/corpus-*, findings to $(FUZZ_DIR)/artifacts/.
FUZZ_SECONDS ?= 60
FUZZ_DIR     := $(BUILD)/fuzz
# Seed file: PyTorch's (SHARED, see the Makefile), else the project's own schemas.
FUZZ_NATIVE  := $(firstword $(wildcard $(SHARED)/pytorch/native_functions.yaml) schemas/native_functions.yaml)
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=c11 -Wall -Wextra -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP
FUZZ_CPPFLAGS := -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Igen -Igen/schema -Iruntime/include
FUZZ_LDFLAGS := $(FUZZ_SAN) -fsanitize=fuzzer
FUZZ_RUN_FLAGS := -rss_limit_mb=2048 -timeout=25 -print_final_stats=1

# fuzz_dispatch: the whole runtime (C with clang, the C++ boundary with clang++) and the
# generated ops, compiled again with the fuzz flags.
FUZZ_RT_SRCS     := $(RT_SRCS) \
                    $(SCHEMA_C_SRCS)
# The schema library's objects, compiled again with the fuzz flags.
FUZZ_SCHEMA_LIB := $(SCHEMA_C_SRCS:%.c=$(FUZZ_DIR)/obj/%.o) $(SCHEMA_RE_SRCS:%.re=$(FUZZ_DIR)/obj/%.o)
FUZZ_DISPATCH_OBJS := $(FUZZ_DIR)/obj/fuzz/fuzz_dispatch.o $(FUZZ_RT_SRCS:%.c=$(FUZZ_DIR)/obj/%.o) \
                    $(FUZZ_SCHEMA_LIB) $(RT_CXX_SRCS:%.cc=$(FUZZ_DIR)/obj/%.o)
CLANGXX ?= clang++
FUZZ_CXXFLAGS := -std=c++17 -Wall -Wextra -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP

FUZZ_SCHEMA_OBJS := $(FUZZ_DIR)/obj/fuzz/fuzz_schema.o $(FUZZ_SCHEMA_LIB)
FUZZ_GEN_OBJS    := $(GEN_C_SRCS:%.c=$(FUZZ_DIR)/obj/%.o) $(FUZZ_SCHEMA_LIB)
FUZZ_YAML_OBJS   := $(FUZZ_DIR)/obj/fuzz/fuzz_yaml.o $(FUZZ_GEN_OBJS)

$(FUZZ_DIR)/src/gen/%.c: gen/%.re | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(RE2C) -W -Werror --no-generation-date --no-version -o $@ $<
$(FUZZ_DIR)/obj/gen/%.o: $(FUZZ_DIR)/src/gen/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@
$(FUZZ_DIR)/obj/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/obj/%.o: %.cc | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CLANGXX) $(FUZZ_CPPFLAGS) $(FUZZ_CXXFLAGS) -c $< -o $@
$(FUZZ_DIR)/obj/generated/%.o: generated/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CPPFLAGS) -Igenerated $(FUZZ_CFLAGS) -c $< -o $@
$(FUZZ_DIR)/obj/runtime/%.o: runtime/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CPPFLAGS) -Igenerated $(FUZZ_CFLAGS) -c $< -o $@
$(FUZZ_DIR)/fuzz_dispatch: $(FUZZ_DISPATCH_OBJS)
	$(CLANGXX) $(FUZZ_LDFLAGS) -o $@ $^ $(RT_LDLIBS)

$(FUZZ_DIR)/fuzz_schema: $(FUZZ_SCHEMA_OBJS)
	$(CLANG) $(FUZZ_LDFLAGS) -o $@ $^
$(FUZZ_DIR)/fuzz_yaml: $(FUZZ_YAML_OBJS)
	@$(CLANG) $(FUZZ_LDFLAGS) -o $@ $^ $(GEN_LDLIBS) || { \
	  echo "fuzz: cannot link $@: the YAML loader behind gen/shimgen.h (sg_context_new," \
	       "sg_load_buffer, sg_finalize, sg_context_free) is missing or incomplete" >&2; exit 1; }

# Seeds: every `func:` string as one file (no newline), and the file cut into chunks of
# 50 entries (each a valid native_functions.yaml of its own).
$(FUZZ_DIR)/seeds-schema.stamp: $(FUZZ_NATIVE)
	@rm -rf $(FUZZ_DIR)/seeds-schema && mkdir -p $(FUZZ_DIR)/seeds-schema
	@sed -n 's/^- func: //p' $< | awk -v d=$(FUZZ_DIR)/seeds-schema \
	  '{ f = sprintf("%s/%04d", d, NR); printf "%s", $$0 > f; close(f) }'
	@echo "fuzz: $$(ls $(FUZZ_DIR)/seeds-schema | wc -l) schema seeds"
	@touch $@
$(FUZZ_DIR)/seeds-yaml.stamp: $(FUZZ_NATIVE)
	@rm -rf $(FUZZ_DIR)/seeds-yaml && mkdir -p $(FUZZ_DIR)/seeds-yaml
	@awk -v d=$(FUZZ_DIR)/seeds-yaml \
	  '/^- func: / { if (n++ % 50 == 0) { if (f) close(f); f = sprintf("%s/%03d.yaml", d, n / 50) } } \
	   f { print > f }' $<
	@echo "fuzz: $$(ls $(FUZZ_DIR)/seeds-yaml | wc -l) yaml seeds"
	@touch $@

.PHONY: fuzz-schema fuzz-yaml fuzz-dispatch fuzz-build check-fuzz
fuzz-build: $(FUZZ_DIR)/fuzz_schema $(FUZZ_DIR)/fuzz_yaml $(FUZZ_DIR)/fuzz_dispatch
fuzz-schema: $(FUZZ_DIR)/fuzz_schema $(FUZZ_DIR)/seeds-schema.stamp
	@mkdir -p $(FUZZ_DIR)/corpus-schema $(FUZZ_DIR)/artifacts
	$(FUZZ_DIR)/fuzz_schema $(FUZZ_RUN_FLAGS) -max_len=4096 -max_total_time=$(FUZZ_SECONDS) \
	  -dict=fuzz/schema.dict \
	  -artifact_prefix=$(FUZZ_DIR)/artifacts/schema- \
	  $(FUZZ_DIR)/corpus-schema $(FUZZ_DIR)/seeds-schema
fuzz-yaml: $(FUZZ_DIR)/fuzz_yaml $(FUZZ_DIR)/seeds-yaml.stamp
	@mkdir -p $(FUZZ_DIR)/corpus-yaml $(FUZZ_DIR)/artifacts
	$(FUZZ_DIR)/fuzz_yaml $(FUZZ_RUN_FLAGS) -max_len=65536 -max_total_time=$(FUZZ_SECONDS) \
	  -artifact_prefix=$(FUZZ_DIR)/artifacts/yaml- \
	  $(FUZZ_DIR)/corpus-yaml $(FUZZ_DIR)/seeds-yaml
# Random stacks through torch_call_dispatcher (no seeds: the input bytes pick the op and
# the value kinds; the ops come from generated/shim_manifest.json).
fuzz-dispatch: $(FUZZ_DIR)/fuzz_dispatch
	@mkdir -p $(FUZZ_DIR)/corpus-dispatch $(FUZZ_DIR)/artifacts
	SHIMGEN_MANIFEST=generated/shim_manifest.json \
	$(FUZZ_DIR)/fuzz_dispatch $(FUZZ_RUN_FLAGS) -max_len=512 -max_total_time=$(FUZZ_SECONDS) \
	  -artifact_prefix=$(FUZZ_DIR)/artifacts/dispatch- $(FUZZ_DIR)/corpus-dispatch
# The three harnesses at once (FUZZ_SECONDS of wall time in all, sharing the cores), each
# one's output kept in $(FUZZ_DIR)/check-*.log and shown when it fails.
FUZZ_HARNESSES := schema yaml dispatch
check-fuzz: $(FUZZ_DIR)/fuzz_schema $(FUZZ_DIR)/fuzz_yaml $(FUZZ_DIR)/fuzz_dispatch \
            $(FUZZ_DIR)/seeds-schema.stamp $(FUZZ_DIR)/seeds-yaml.stamp
	@for h in $(FUZZ_HARNESSES); do \
	  $(MAKE) --no-print-directory fuzz-$$h >$(FUZZ_DIR)/check-$$h.log 2>&1 & eval "p_$$h=$$!"; \
	done; rc=0; for h in $(FUZZ_HARNESSES); do \
	  if eval "wait \$$p_$$h"; then \
	    echo "fuzz-$$h: $$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' \
	      $(FUZZ_DIR)/check-$$h.log), nothing found"; \
	  else rc=1; echo "== fuzz-$$h FAILED ($(FUZZ_DIR)/check-$$h.log):"; \
	    tail -80 $(FUZZ_DIR)/check-$$h.log; fi; \
	done; exit $$rc

-include $(shell find $(FUZZ_DIR)/obj -name '*.d' 2>/dev/null)

FUZZ_STEPS  += check-fuzz
CHECK_BUILD += fuzz-build $(FUZZ_DIR)/seeds-schema.stamp $(FUZZ_DIR)/seeds-yaml.stamp
CHECK_STEPS += check-fuzz
include fuzz/diff/diff.mk
