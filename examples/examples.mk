# examples/: the demo (`make demo`) and the custom-op example library.
#
#   make myops       $(BUILD)/examples/myops/libmyops.so, built as an extension author
#                    builds it (examples/myops/build.sh): shimgen on examples/myops/schemas,
#                    then cc with `pkg-config shimrt` against a staged `make install`
#                    ($(BUILD)/stage)
#   make myops-demo  loads it, calls myops::add_scalar through the dispatcher, prints
#   make myops-torch $(BUILD)/examples/myops/torch/libmyops_torch.so: the same sources as a
#                    PyTorch extension (examples/myops/build_torch.sh; needs torch in
#                    $(PYTHON), default python3, or TORCH=<torch package dir>)
# EXAMPLES_DEMO_STEPS: the steps for the top-level `make demo` to run.
MYOPS_SRC   := examples/myops
MYOPS_OUT   := $(BUILD)/examples/myops
MYOPS_SO    := $(MYOPS_OUT)/libmyops.so
MYOPS_DEMO  := $(MYOPS_OUT)/demo
MYOPS_STAGE := $(abspath $(BUILD)/stage)

# libshimrt installed under a staging root, as a user would install it.
$(MYOPS_STAGE)/.stamp: $(LIBSHIMRT_SO) $(LIBSHIMRT_A) $(wildcard runtime/include/shimrt/*.h)
	rm -rf $(MYOPS_STAGE) && mkdir -p $(MYOPS_STAGE)
	$(MAKE) --no-print-directory install BUILD=$(BUILD) SAN=$(SAN) DESTDIR=$(MYOPS_STAGE) PREFIX=/usr
	touch $@

$(MYOPS_SO): $(SHIMGEN) $(MYOPS_STAGE)/.stamp $(wildcard $(MYOPS_SRC)/schemas/*.yaml) \
             $(MYOPS_SRC)/myops_kernel.c $(MYOPS_SRC)/build.sh
	CC="$(CC)" SANFLAGS="$(SANFLAGS)" sh $(MYOPS_SRC)/build.sh $(SHIMGEN) $(MYOPS_OUT) $(MYOPS_STAGE) $(BUILD)

$(MYOPS_DEMO): $(MYOPS_SRC)/demo.c $(MYOPS_SO)
	$(CC) -std=c11 -Wall -Wextra -Werror $(SANFLAGS) $$(cat $(MYOPS_OUT)/shimrt.cflags) \
	  -o $@ $< $$(cat $(MYOPS_OUT)/shimrt.libs) -ldl

.PHONY: myops myops-demo
myops: $(MYOPS_SO)
myops-demo: $(MYOPS_DEMO)
	LD_LIBRARY_PATH=$$(cat $(MYOPS_OUT)/shimrt.libdir) ./$(MYOPS_DEMO) $(abspath $(MYOPS_SO))

EXAMPLES_DEMO_STEPS := myops-demo

.PHONY: myops-torch
myops-torch: $(SHIMGEN)
	CC="$(CC)" sh $(MYOPS_SRC)/build_torch.sh $(SHIMGEN) $(MYOPS_OUT)/torch

# The runtime's own ops (generated from schemas/) called three ways: examples/demo/demo.c.
CORE_DEMO := $(BUILD)/examples/demo/demo
$(CORE_DEMO): $(BUILD)/obj/examples/demo/demo.o $(LIBSHIMRT_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $^ $(RT_LDLIBS)
.PHONY: core-demo
core-demo: $(CORE_DEMO)
	./$(CORE_DEMO)
EXAMPLES_DEMO_STEPS := core-demo $(EXAMPLES_DEMO_STEPS)

# `make demo`: the main job. Regenerates generated/ from schemas/ first (a separate make
# run, since the runtime's sources include what it writes), then runs the demos.
.PHONY: demo demo-run
demo: $(SHIMGEN)
	@echo "== $(SHIMGEN) -v schemas/ -o generated/"
	@./$(SHIMGEN) -v schemas/ -o generated/
	@$(MAKE) --no-print-directory demo-run
demo-run: $(EXAMPLES_DEMO_STEPS)
	@echo "== demo: done"
