# gen/: the shimgen compiler as a library (libshimgen.a) and its thin CLI (gen/main.c), on
# top of the schema grammar library that the runtime links too (gen/schema/schema.mk).
include gen/schema/schema.mk
GEN_C_SRCS  := $(filter-out gen/main.c,$(wildcard gen/*.c))
GEN_OBJS    := $(GEN_C_SRCS:%.c=$(BUILD)/obj/%.o)
LIBSHIMGEN  := $(BUILD)/libshimgen.a
# What a program using libshimgen.a links: it, then the schema library under it.
GEN_LIBS    := $(LIBSHIMGEN) $(LIBSGSCHEMA)
SHIMGEN     := $(BUILD)/shimgen
GEN_LDLIBS  := -lyaml $(LDLIBS_COMMON)

# re2c output (gen/schema/schema_lex.re) is a build product, never committed.
$(BUILD)/src/gen/%.c: gen/%.re | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(RE2C) -W -Werror --no-generation-date --no-version -o $@ $<

$(LIBSHIMGEN): $(GEN_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SHIMGEN): $(BUILD)/obj/gen/main.o $(GEN_LIBS)
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
