# gen/: the shimgen compiler as a library (libshimgen.a) and its thin CLI (gen/main.c).
# The schema grammar (SCHEMA_OBJS) is shared: the runtime links the very same objects.
GEN_C_SRCS  := $(filter-out gen/main.c,$(wildcard gen/*.c))
GEN_RE_SRCS := $(wildcard gen/*.re)
GEN_OBJS    := $(GEN_C_SRCS:%.c=$(BUILD)/obj/%.o) $(GEN_RE_SRCS:%.re=$(BUILD)/obj/%.o)
SCHEMA_OBJS := $(BUILD)/obj/gen/arena.o $(BUILD)/obj/gen/schema.o $(BUILD)/obj/gen/schema_lex.o
LIBSHIMGEN  := $(BUILD)/libshimgen.a
SHIMGEN     := $(BUILD)/shimgen
GEN_LDLIBS  := -lyaml $(LDLIBS_COMMON)

# re2c output is a build product, never committed.
$(BUILD)/src/gen/%.c: gen/%.re | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(RE2C) -W -Werror --no-generation-date --no-version -o $@ $<

$(LIBSHIMGEN): $(GEN_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SHIMGEN): $(BUILD)/obj/gen/main.o $(LIBSHIMGEN)
	$(CC) $(LDFLAGS_COMMON) $(LDFLAGS) -o $@ $^ $(GEN_LDLIBS)

ALL_TARGETS += $(SHIMGEN)
