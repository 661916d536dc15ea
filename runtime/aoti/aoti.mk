# runtime/aoti/: libshimrt-aoti (shimrt/aoti_package.h: open and run AOTInductor .pt2
# packages) and the shimrt-run command. A library of its own on top of libshimrt.so, so
# that libshimrt itself stays free of libzip (Debian's libzip-dev, in .ci/deps): only
# programs that open packages link it. The model .so resolves its aoti_torch_* calls in
# the global scope, hence libshimrt.so (not the .a) under both. rpath: build/ and an
# installed bin/../lib.
AOTI_OBJS         := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard runtime/aoti/*.c)))
LIBSHIMRT_AOTI_A  := $(BUILD)/libshimrt-aoti.a
LIBSHIMRT_AOTI_SO := $(BUILD)/libshimrt-aoti.so
AOTI_LDLIBS       := -L$(BUILD) -lshimrt -lzip -ldl -Wl,-rpath,'$$ORIGIN:$$ORIGIN/../lib'
SHIMRT_RUN        := $(BUILD)/shimrt-run

$(LIBSHIMRT_AOTI_A): $(AOTI_OBJS)
	rm -f $@ && ar rcs $@ $^
$(LIBSHIMRT_AOTI_SO): $(AOTI_OBJS) $(LIBSHIMRT_SO)
	$(CC) -shared $(LDFLAGS_COMMON) $(LDFLAGS) -Wl,-soname,libshimrt-aoti.so.0 -Wl,--no-undefined \
	  -o $@ $(AOTI_OBJS) $(AOTI_LDLIBS)
	ln -sf libshimrt-aoti.so $(BUILD)/libshimrt-aoti.so.0
$(SHIMRT_RUN): $(BUILD)/obj/runtime/aoti/tool/shimrt_run.o $(LIBSHIMRT_AOTI_A) $(LIBSHIMRT_SO)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) $(AOTI_LDLIBS)

# libshimrt-cudart (runtime/aoti/cudart/): the CUDA runtime API functions a CUDA model's
# .so calls, on libshimrt's CUDA layer; libshimrt-aoti loads it (from its own folder, else
# by soname) when it opens a CUDA package in a process without libcudart.
LIBSHIMRT_CUDART_SO := $(BUILD)/libshimrt-cudart.so
$(LIBSHIMRT_CUDART_SO): $(BUILD)/obj/runtime/aoti/cudart/cudart.o $(LIBSHIMRT_SO)
	$(CC) -shared $(LDFLAGS_COMMON) $(LDFLAGS) -Wl,-soname,libshimrt-cudart.so.0 -Wl,--no-undefined \
	  -o $@ $< -L$(BUILD) -lshimrt -Wl,-rpath,'$$ORIGIN:$$ORIGIN/../lib'
	ln -sf libshimrt-cudart.so $(BUILD)/libshimrt-cudart.so.0
$(SHIMRT_RUN): | $(LIBSHIMRT_CUDART_SO)

# torch-libs/: libshimrt under the sonames a binary built against PyTorch records as
# NEEDED (libtorch.so, libc10.so, ..., libcudart.so.13: a stable-ABI extension wheel such as
# torchaudio's), relative links to ../libshimrt.so.0 and ../libshimrt-cudart.so.0. On
# LD_LIBRARY_PATH they let such a binary load unchanged on libshimrt (docs/dropin.md); each
# resolves to the file already loaded, so the process still has one libshimrt.
# (libshimrt.so.0 too: libshimrt-cudart's NEEDED, found beside it whatever the rpath.)
TORCH_LIB_ALIASES := libc10.so libtorch.so libtorch_cpu.so libc10_cuda.so libtorch_cuda.so \
  libshimrt.so.0
CUDART_ALIASES    := libcudart.so.13 libcudart.so.12
TORCH_LIBS_STAMP  := $(BUILD)/torch-libs/.stamp
$(TORCH_LIBS_STAMP): $(LIBSHIMRT_SO) $(LIBSHIMRT_CUDART_SO) runtime/aoti/aoti.mk
	mkdir -p $(BUILD)/torch-libs
	for a in $(TORCH_LIB_ALIASES); do ln -sfn ../libshimrt.so.0 $(BUILD)/torch-libs/$$a || exit 1; done
	for a in $(CUDART_ALIASES); do ln -sfn ../libshimrt-cudart.so.0 $(BUILD)/torch-libs/$$a || exit 1; done
	touch $@

ALL_TARGETS += $(LIBSHIMRT_AOTI_A) $(LIBSHIMRT_AOTI_SO) $(SHIMRT_RUN) $(LIBSHIMRT_CUDART_SO) \
  $(TORCH_LIBS_STAMP)

# install: beside libshimrt (its header shimrt/aoti_package.h is installed with libshimrt's).
.PHONY: install-shimrt-aoti uninstall-shimrt-aoti
install-shimrt-aoti: $(LIBSHIMRT_AOTI_A) $(LIBSHIMRT_AOTI_SO) $(SHIMRT_RUN) $(LIBSHIMRT_CUDART_SO)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(SHIMRT_RUN) $(DESTDIR)$(PREFIX)/bin/shimrt-run
	install -m 755 $(LIBSHIMRT_AOTI_SO) $(DESTDIR)$(LIBDIR)/libshimrt-aoti.so.$(SHIMRT_VERSION)
	ln -sf libshimrt-aoti.so.$(SHIMRT_VERSION) $(DESTDIR)$(LIBDIR)/libshimrt-aoti.so.$(SHIMRT_SONAME_MAJOR)
	ln -sf libshimrt-aoti.so.$(SHIMRT_SONAME_MAJOR) $(DESTDIR)$(LIBDIR)/libshimrt-aoti.so
	install -m 644 $(LIBSHIMRT_AOTI_A) $(DESTDIR)$(LIBDIR)/libshimrt-aoti.a
	install -m 755 $(LIBSHIMRT_CUDART_SO) $(DESTDIR)$(LIBDIR)/libshimrt-cudart.so.$(SHIMRT_VERSION)
	ln -sf libshimrt-cudart.so.$(SHIMRT_VERSION) $(DESTDIR)$(LIBDIR)/libshimrt-cudart.so.$(SHIMRT_SONAME_MAJOR)
	install -d $(DESTDIR)$(LIBDIR)/shimrt/torch-libs
	for a in $(TORCH_LIB_ALIASES); do \
	  ln -sfn ../../libshimrt.so.$(SHIMRT_SONAME_MAJOR) $(DESTDIR)$(LIBDIR)/shimrt/torch-libs/$$a || exit 1; done
	for a in $(CUDART_ALIASES); do \
	  ln -sfn ../../libshimrt-cudart.so.$(SHIMRT_SONAME_MAJOR) $(DESTDIR)$(LIBDIR)/shimrt/torch-libs/$$a || exit 1; done
uninstall-shimrt-aoti:
	rm -f $(DESTDIR)$(PREFIX)/bin/shimrt-run $(DESTDIR)$(LIBDIR)/libshimrt-aoti.so.$(SHIMRT_VERSION) \
	  $(DESTDIR)$(LIBDIR)/libshimrt-aoti.so.$(SHIMRT_SONAME_MAJOR) $(DESTDIR)$(LIBDIR)/libshimrt-aoti.so \
	  $(DESTDIR)$(LIBDIR)/libshimrt-aoti.a $(DESTDIR)$(LIBDIR)/libshimrt-cudart.so.$(SHIMRT_VERSION) \
	  $(DESTDIR)$(LIBDIR)/libshimrt-cudart.so.$(SHIMRT_SONAME_MAJOR)
	for a in $(TORCH_LIB_ALIASES) $(CUDART_ALIASES); do rm -f $(DESTDIR)$(LIBDIR)/shimrt/torch-libs/$$a; done
	rmdir $(DESTDIR)$(LIBDIR)/shimrt/torch-libs $(DESTDIR)$(LIBDIR)/shimrt 2>/dev/null || true
INSTALL_STEPS += install-shimrt-aoti
UNINSTALL_STEPS += uninstall-shimrt-aoti
