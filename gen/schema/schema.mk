# gen/schema/: the function-schema grammar (arena, lexer, parser, printer) as one small static
# library, libsgschema.a, that both shimgen (gen/gen.mk) and libshimrt (runtime/runtime.mk)
# link: one copy of that code. It depends on nothing else of gen/; its users find its headers
# through -Igen/schema.
SCHEMA_C_SRCS := $(wildcard gen/schema/*.c)
SCHEMA_RE_SRCS := $(wildcard gen/schema/*.re)
SCHEMA_OBJS   := $(SCHEMA_C_SRCS:%.c=$(BUILD)/obj/%.o) $(SCHEMA_RE_SRCS:%.re=$(BUILD)/obj/%.o)
LIBSGSCHEMA   := $(BUILD)/libsgschema.a

$(LIBSGSCHEMA): $(SCHEMA_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
