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

# Installs the binary and the templates its emitters read (<prefix>/share/shimgen/templates).
.PHONY: install-shimgen uninstall-shimgen
install-shimgen: $(SHIMGEN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/shimgen/templates
	install -m 755 $(SHIMGEN) $(DESTDIR)$(PREFIX)/bin/shimgen
	install -m 644 templates/*.in $(DESTDIR)$(PREFIX)/share/shimgen/templates/
	install -d $(DESTDIR)$(PREFIX)/share/shimgen/templates/torch
	install -m 644 templates/torch/*.in $(DESTDIR)$(PREFIX)/share/shimgen/templates/torch/
uninstall-shimgen:
	rm -f $(DESTDIR)$(PREFIX)/bin/shimgen
	rm -rf $(DESTDIR)$(PREFIX)/share/shimgen
INSTALL_STEPS += install-shimgen
UNINSTALL_STEPS += uninstall-shimgen
