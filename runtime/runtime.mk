# runtime/: libshimrt, the hand-written C runtime. It links the schema grammar library
# (LIBSGSCHEMA, gen/schema/schema.mk) that shimgen links too.
# generated/*.c: the shims, boxed wrappers and registration shimgen made from schemas/.
# The device folders: every folder of runtime/ but the layers below them and aoti/ (a new
# backend is its folder and its row in runtime/backends.c; docs/architecture.md).
RT_DEVICES   := $(filter-out aoti core generic include ops,$(patsubst runtime/%/,%,$(sort $(wildcard runtime/*/))))
RT_SRCS      := $(sort $(wildcard runtime/core/*.c runtime/generic/*.c $(RT_DEVICES:%=runtime/%/*.c) generated/*.c) runtime/backends.c)
# The C++ files, each saying why it is C++: the exception boundary and the new/delete
# StableIValue cells (runtime/core/cxx_boundary.cc), and the float64/complex128 FFT on
# kissfft's C++ template (runtime/cpu/fft_double.cc). Compiled with g++; libstdc++ is then
# a dependency of libshimrt (RT_LDLIBS).
RT_CXX_SRCS  := runtime/core/cxx_boundary.cc runtime/cpu/fft_double.cc
RT_OBJS      := $(RT_SRCS:%.c=$(BUILD)/obj/%.o) $(RT_CXX_SRCS:%.cc=$(BUILD)/obj/%.o)
LIBSHIMRT_A  := $(BUILD)/libshimrt.a
LIBSHIMRT_SO := $(BUILD)/libshimrt.so
# -lsleef: SLEEF's 1-ulp exp/log/tanh, PyTorch's own math library (libsleef-dev), called
# by its explicit names from runtime/cpu/vecmath.c; see docs/engine.md
# -lkissfft-float: kissfft (BSD-3-Clause, libkissfft-dev), the FFT of runtime/cpu/fft.c
# (its double variant is the header-only template of runtime/cpu/fft_double.cc)
RT_LDLIBS    := -lopenblas -ldnnl -lgomp -lsleef -lkissfft-float $(LDLIBS_COMMON) -lstdc++
CXX          ?= g++
CXXFLAGS_RT  := -std=c++17 -Wall -Wextra -Werror $(OPT) $(SANFLAGS) -fPIC -fvisibility=hidden -MMD -MP

$(BUILD)/obj/%.o: %.cc | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS_COMMON) $(CPPFLAGS) $(CXXFLAGS_RT) $(CXXFLAGS) -c $< -o $@

# The static archive carries the schema library's objects, so that it links alone.
$(LIBSHIMRT_A): $(RT_OBJS) $(SCHEMA_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
# The soname link lives beside the library, so programs linked against build/ run.
$(LIBSHIMRT_SO): $(RT_OBJS) $(LIBSGSCHEMA)
	$(CXX) -shared $(LDFLAGS_COMMON) $(LDFLAGS) -Wl,-soname,libshimrt.so.0 -Wl,--no-undefined -o $@ $^ $(RT_LDLIBS)
	ln -sf libshimrt.so $(BUILD)/libshimrt.so.0

# shimrt-jit (runtime/cuda/tool/): the CUDA JIT cache command, installed with the runtime.
SHIMRT_JIT := $(BUILD)/shimrt-jit
$(SHIMRT_JIT): $(BUILD)/obj/runtime/cuda/tool/shimrt_jit.o $(LIBSHIMRT_A)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $^ $(RT_LDLIBS)

ALL_TARGETS += $(LIBSHIMRT_A) $(LIBSHIMRT_SO) $(SHIMRT_JIT) $(BUILD)/rt_ldlibs
# What a program linking libshimrt.a statically needs after it, written once for the scripts
# that link test programs when make does not pass RT_LDLIBS to them: one list, here.
$(BUILD)/rt_ldlibs: FORCE
	@mkdir -p $(dir $@); echo '$(RT_LDLIBS)' | cmp -s - $@ || echo '$(RT_LDLIBS)' > $@
.PHONY: FORCE
FORCE:

# ---- install: libshimrt.so (+ soname links), libshimrt.a, the headers (ours and the
# compatibility headers at PyTorch's paths) and shimrt.pc for pkg-config.
SHIMRT_VERSION      := 0.1.0
SHIMRT_SONAME_MAJOR := 0
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
RT_HEADER_DIRS := shimrt torch
# The generated shim headers go where PyTorch keeps them, so a C client written against
# PyTorch's include paths finds <torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h>.
RT_GENERATED_INCDIR  := torch/csrc/inductor/aoti_torch/generated
RT_GENERATED_HEADERS := $(sort $(wildcard generated/c_shim_*.h))

.PHONY: install-shimrt uninstall-shimrt
install-shimrt: $(LIBSHIMRT_A) $(LIBSHIMRT_SO) $(SHIMRT_JIT)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(SHIMRT_JIT) $(DESTDIR)$(PREFIX)/bin/shimrt-jit
	install -m 755 $(LIBSHIMRT_SO) $(DESTDIR)$(LIBDIR)/libshimrt.so.$(SHIMRT_VERSION)
	ln -sf libshimrt.so.$(SHIMRT_VERSION) $(DESTDIR)$(LIBDIR)/libshimrt.so.$(SHIMRT_SONAME_MAJOR)
	ln -sf libshimrt.so.$(SHIMRT_SONAME_MAJOR) $(DESTDIR)$(LIBDIR)/libshimrt.so
	install -m 644 $(LIBSHIMRT_A) $(DESTDIR)$(LIBDIR)/libshimrt.a
	cd runtime/include && for h in $$(find $(RT_HEADER_DIRS) -name '*.h' | sort); do \
	  install -d "$(DESTDIR)$(INCLUDEDIR)/$$(dirname $$h)" && \
	  install -m 644 "$$h" "$(DESTDIR)$(INCLUDEDIR)/$$h" || exit 1; done
	install -d $(DESTDIR)$(INCLUDEDIR)/$(RT_GENERATED_INCDIR)
	for h in $(RT_GENERATED_HEADERS); do \
	  install -m 644 "$$h" "$(DESTDIR)$(INCLUDEDIR)/$(RT_GENERATED_INCDIR)/$$(basename $$h)" || exit 1; done
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: shimrt' \
	  'Description: libtorch-free runtime for the LibTorch stable C ABI' \
	  'Version: $(SHIMRT_VERSION)' \
	  'Libs: -L$${libdir} -lshimrt' \
	  'Libs.private: $(RT_LDLIBS)' \
	  'Cflags: -I$${includedir}' > $(DESTDIR)$(PKGCONFIGDIR)/shimrt.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/shimrt.pc

# Removes exactly the files install-shimrt put there, then the folders left empty.
uninstall-shimrt:
	rm -f $(DESTDIR)$(PREFIX)/bin/shimrt-jit
	rm -f $(DESTDIR)$(LIBDIR)/libshimrt.so.$(SHIMRT_VERSION) \
	  $(DESTDIR)$(LIBDIR)/libshimrt.so.$(SHIMRT_SONAME_MAJOR) $(DESTDIR)$(LIBDIR)/libshimrt.so \
	  $(DESTDIR)$(LIBDIR)/libshimrt.a $(DESTDIR)$(PKGCONFIGDIR)/shimrt.pc
	for h in $(RT_GENERATED_HEADERS); do \
	  rm -f "$(DESTDIR)$(INCLUDEDIR)/$(RT_GENERATED_INCDIR)/$$(basename $$h)"; done
	rmdir "$(DESTDIR)$(INCLUDEDIR)/$(RT_GENERATED_INCDIR)" 2>/dev/null || true
	cd runtime/include && for h in $$(find $(RT_HEADER_DIRS) -name '*.h'); do \
	  rm -f "$(DESTDIR)$(INCLUDEDIR)/$$h"; done; \
	for d in $$(find $(RT_HEADER_DIRS) -type d | sort -r); do \
	  rmdir "$(DESTDIR)$(INCLUDEDIR)/$$d" 2>/dev/null || true; done

INSTALL_STEPS += install-shimrt
UNINSTALL_STEPS += uninstall-shimrt

# ---- the layers (docs/architecture.md): what each folder's sources may include ----------
# Each folder of runtime/ is compiled with its own -I set (RT_INC_<folder>) and, after each
# compile, runtime/lanes.sh checks every file the compiler read against RT_MAY_<folder>
# (its own folder is always allowed): an include across a lane fails the build, whether it
# is spelled "../cuda/x.h" or found through -I. Generated headers: only the folder that
# needs one may reach it. The schema grammar's headers: RT_SCHEMA_HDRS.
RT_BASE_CPPFLAGS := $(filter-out -I%,$(CPPFLAGS_COMMON))
RT_SCHEMA_DIR    := gen/schema
RT_SCHEMA_HDRS   := $(RT_SCHEMA_DIR)
RT_MAY_core      := runtime/include $(RT_SCHEMA_HDRS) generated/c_shim_aten.h
RT_INC_core      := -Iruntime/include -I$(RT_SCHEMA_DIR) -Igenerated
RT_MAY_generic   := runtime/include runtime/core generated/compositeexplicitautograd_kernels.h
RT_INC_generic   := -Iruntime/include -Igenerated
# a device folder: the layers below it and its own generated headers
RT_MAY_device     = runtime/include runtime/core runtime/generic runtime/ops generated/$(1)_kernels.h \
                    generated/c_boxed_$(1).h generated/compositeexplicitautograd_kernels.h \
                    generated/compositeimplicitautograd_kernels.h
$(foreach d,$(RT_DEVICES),$(eval RT_MAY_$(d) := $(call RT_MAY_device,$(d))))
$(foreach d,$(RT_DEVICES),$(eval RT_INC_$(d) := -Iruntime/include -Igenerated))
RT_MAY_aoti      := runtime/include
RT_INC_aoti      := -Iruntime/include
RT_LANES         := core generic aoti $(RT_DEVICES)
define RT_LANE_RULE
$$(BUILD)/obj/runtime/$(1)/%.o: runtime/$(1)/%.c runtime/lanes.sh | $$(DEPS_STAMP)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(RT_BASE_CPPFLAGS) $$(RT_INC_$(1)) $$(CPPFLAGS) $$(CFLAGS_COMMON) $$(CFLAGS) -c $$< -o $$@
	@sh runtime/lanes.sh $$(@:.o=.d) runtime/$(1) $$(RT_MAY_$(1)) || { rm -f $$@; exit 1; }
endef
$(foreach l,$(RT_LANES),$(eval $(call RT_LANE_RULE,$(l))))
# a C++ file keeps its folder's rules (core/, cpu/)
define RT_CXX_LANE_RULE
$$(BUILD)/obj/runtime/$(1)/%.o: runtime/$(1)/%.cc runtime/lanes.sh | $$(DEPS_STAMP)
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(RT_BASE_CPPFLAGS) $$(RT_INC_$(1)) $$(CPPFLAGS) $$(CXXFLAGS_RT) $$(CXXFLAGS) -c $$< -o $$@
	@sh runtime/lanes.sh $$(@:.o=.d) runtime/$(1) $$(RT_MAY_$(1)) || { rm -f $$@; exit 1; }
endef
$(foreach l,core cpu,$(eval $(call RT_CXX_LANE_RULE,$(l))))

# The kernel engine: integer ops wrap in two's complement as PyTorch's do (-fwrapv), and
# floating expressions are never contracted behind the definition's back (sh_fma is explicit).
# -O3: gcc 12 vectorizes loops of unknown trip count only beyond -O2's very-cheap cost
# model; -fno-math-errno lets sqrt inline; -fopenmp-simd + SHIMRT_VECMATH: exp/log/tanh
# through the vector-ABI variants of runtime/cpu/vecmath.c's SLEEF functions (check with
# -fopt-info-vec).
# kern_{base,v3,v4}.c are the same kernels built three times; pointwise.c picks one by
# __builtin_cpu_supports at run time (SHIMRT_ISA=base or v3 forces a lower one).
ENGINE_OBJS := $(addprefix $(BUILD)/obj/runtime/cpu/,pointwise.o reduce.o engine.o kern_base.o kern_v3.o kern_v4.o)
$(ENGINE_OBJS): CFLAGS += -O3 -fno-math-errno -fwrapv -ffp-contract=off
KERN_OBJS := $(addprefix $(BUILD)/obj/runtime/cpu/,kern_base.o kern_v3.o kern_v4.o)
$(KERN_OBJS): CFLAGS += -fopenmp-simd
$(KERN_OBJS): CPPFLAGS += -DSHIMRT_VECMATH
$(BUILD)/obj/runtime/cpu/kern_v3.o: CFLAGS += -march=x86-64-v3
$(BUILD)/obj/runtime/cpu/kern_v4.o: CFLAGS += -march=x86-64-v4 -mprefer-vector-width=512
# GEMM goes to OpenBLAS (Debian's libopenblas-dev, pthreads build; .ci/deps installs it).
OPENBLAS_CPPFLAGS := -I/usr/include/x86_64-linux-gnu/openblas-pthread
$(BUILD)/obj/runtime/cpu/linalg.o: CPPFLAGS += $(OPENBLAS_CPPFLAGS)

# libshimrt-aoti and shimrt-run (AOTInductor packages): runtime/aoti/aoti.mk.
include runtime/aoti/aoti.mk
