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

ALL_TARGETS += $(LIBSHIMRT_AOTI_A) $(LIBSHIMRT_AOTI_SO) $(SHIMRT_RUN) $(LIBSHIMRT_CUDART_SO)

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
uninstall-shimrt-aoti:
	rm -f $(DESTDIR)$(PREFIX)/bin/shimrt-run $(DESTDIR)$(LIBDIR)/libshimrt-aoti.so.$(SHIMRT_VERSION) \
	  $(DESTDIR)$(LIBDIR)/libshimrt-aoti.so.$(SHIMRT_SONAME_MAJOR) $(DESTDIR)$(LIBDIR)/libshimrt-aoti.so \
	  $(DESTDIR)$(LIBDIR)/libshimrt-aoti.a $(DESTDIR)$(LIBDIR)/libshimrt-cudart.so.$(SHIMRT_VERSION) \
	  $(DESTDIR)$(LIBDIR)/libshimrt-cudart.so.$(SHIMRT_SONAME_MAJOR)
INSTALL_STEPS += install-shimrt-aoti
UNINSTALL_STEPS += uninstall-shimrt-aoti
