# runtime/: libshimrt, the hand-written C runtime. It links the shared schema grammar
# (SCHEMA_OBJS from gen/gen.mk): one copy of that code in both shimgen and the runtime.
# generated/*.c: the shims, boxed wrappers and registration shimgen made from schemas/.
RT_SRCS      := $(sort $(wildcard runtime/core/*.c runtime/cpu/*.c runtime/cuda/*.c generated/*.c))
RT_OBJS      := $(RT_SRCS:%.c=$(BUILD)/obj/%.o) $(SCHEMA_OBJS)
LIBSHIMRT_A  := $(BUILD)/libshimrt.a
LIBSHIMRT_SO := $(BUILD)/libshimrt.so
RT_LDLIBS    := $(LDLIBS_COMMON)

$(LIBSHIMRT_A): $(RT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(LIBSHIMRT_SO): $(RT_OBJS)
	$(CC) -shared $(LDFLAGS_COMMON) $(LDFLAGS) -Wl,-soname,libshimrt.so.0 -o $@ $^ $(RT_LDLIBS)

# shimrt-jit (runtime/cuda/tool/): the CUDA JIT cache command, installed with the runtime.
SHIMRT_JIT := $(BUILD)/shimrt-jit
$(SHIMRT_JIT): $(BUILD)/obj/runtime/cuda/tool/shimrt_jit.o $(LIBSHIMRT_A)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $^ $(RT_LDLIBS)

ALL_TARGETS += $(LIBSHIMRT_A) $(LIBSHIMRT_SO) $(SHIMRT_JIT)

# ---- install: libshimrt.so (+ soname links), libshimrt.a, the headers (ours and the
# compatibility headers at PyTorch's paths) and shimrt.pc for pkg-config.
SHIMRT_VERSION      := 0.1.0
SHIMRT_SONAME_MAJOR := 0
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
RT_HEADER_DIRS := shimrt torch

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
	cd runtime/include && for h in $$(find $(RT_HEADER_DIRS) -name '*.h'); do \
	  rm -f "$(DESTDIR)$(INCLUDEDIR)/$$h"; done; \
	for d in $$(find $(RT_HEADER_DIRS) -type d | sort -r); do \
	  rmdir "$(DESTDIR)$(INCLUDEDIR)/$$d" 2>/dev/null || true; done

INSTALL_STEPS += install-shimrt
UNINSTALL_STEPS += uninstall-shimrt
