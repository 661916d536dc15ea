# runtime/aoti/: libshimrt-aoti (shimrt/aoti_package.h: open and run AOTInductor .pt2
# packages) and the shimrt-run command. A library of its own on top of libshimrt.so, so
# that libshimrt itself stays free of libzip (Debian's libzip-dev, in .ci/deps): only
# programs that open packages link it. The model .so resolves its aoti_torch_* calls in
# the global scope, hence libshimrt.so (not the .a) under both.
AOTI_OBJS         := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard runtime/aoti/*.c)))
LIBSHIMRT_AOTI_A  := $(BUILD)/libshimrt-aoti.a
LIBSHIMRT_AOTI_SO := $(BUILD)/libshimrt-aoti.so
AOTI_LDLIBS       := -L$(BUILD) -lshimrt -lzip -ldl -Wl,-rpath,'$$ORIGIN'
SHIMRT_RUN        := $(BUILD)/shimrt-run

$(LIBSHIMRT_AOTI_A): $(AOTI_OBJS)
	rm -f $@ && ar rcs $@ $^
$(LIBSHIMRT_AOTI_SO): $(AOTI_OBJS) $(LIBSHIMRT_SO)
	$(CC) -shared $(LDFLAGS_COMMON) $(LDFLAGS) -Wl,-soname,libshimrt-aoti.so.0 -Wl,--no-undefined \
	  -o $@ $(AOTI_OBJS) $(AOTI_LDLIBS)
	ln -sf libshimrt-aoti.so $(BUILD)/libshimrt-aoti.so.0
$(SHIMRT_RUN): $(BUILD)/obj/runtime/aoti/tool/shimrt_run.o $(LIBSHIMRT_AOTI_A) $(LIBSHIMRT_SO)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) $(AOTI_LDLIBS)

ALL_TARGETS += $(LIBSHIMRT_AOTI_A) $(LIBSHIMRT_AOTI_SO) $(SHIMRT_RUN)
