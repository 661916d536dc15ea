# runtime/: libshimrt, the hand-written C runtime. It links the shared schema grammar
# (SCHEMA_OBJS from gen/gen.mk): one copy of that code in both shimgen and the runtime.
RT_SRCS      := $(sort $(wildcard runtime/core/*.c runtime/cpu/*.c runtime/cuda/*.c))
RT_OBJS      := $(RT_SRCS:%.c=$(BUILD)/obj/%.o) $(SCHEMA_OBJS)
LIBSHIMRT_A  := $(BUILD)/libshimrt.a
LIBSHIMRT_SO := $(BUILD)/libshimrt.so
RT_LDLIBS    := $(LDLIBS_COMMON)

$(LIBSHIMRT_A): $(RT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(LIBSHIMRT_SO): $(RT_OBJS)
	$(CC) -shared $(LDFLAGS_COMMON) $(LDFLAGS) -Wl,-soname,libshimrt.so.0 -o $@ $^ $(RT_LDLIBS)

ALL_TARGETS += $(LIBSHIMRT_A) $(LIBSHIMRT_SO)
