# verity-init — plain GNU make, no autotools.
# `make help` lists the targets.

PREFIX    ?= /usr
SBINDIR   ?= $(PREFIX)/sbin
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
DRACUTDIR ?= /usr/lib/dracut/modules.d
DESTDIR   ?=

BUILD     ?= build
CC        ?= cc
PKG_CONFIG ?= pkg-config
SANITIZE  ?= 0

# Where build-aux/static-deps.sh puts libdevmapper.a (built from Debian's lvm2 source).
STATIC_DEPS ?= $(BUILD)/static-deps

WARN      := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wvla
HARDEN    := -D_FORTIFY_SOURCE=2 -fstack-protector-strong
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -Iinclude $(WARN) $(HARDEN)

ifeq ($(SANITIZE),1)
  OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
  SANLD   := -fsanitize=address,undefined
  BUILD   := $(BUILD)/sanitize
else
  OPT     := -O2 -g
  SANLD   :=
endif

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags devmapper blkid libcrypto libsodium 2>/dev/null)
CFLAGS    ?=
CFLAGS    += $(BASE_CFLAGS) $(OPT) $(PKG_CFLAGS) -fPIE
LDFLAGS   ?=
LDFLAGS   += -pie -Wl,-z,relro,-z,now $(SANLD)

LIBS_IMAGE := $(shell $(PKG_CONFIG) --libs libcrypto 2>/dev/null) -lpthread
LIBS_AGENT := $(shell $(PKG_CONFIG) --libs devmapper blkid libsodium 2>/dev/null)
LIBS_CMOCKA := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

# lib/: the core. Every program links the archive; the linker takes only the objects it uses,
# so host-only code (OpenSSL backend) never reaches the static agent.
LIB_SRCS  := $(sort $(wildcard lib/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIBVERITY := $(BUILD)/libverity.a

IMAGE     := $(BUILD)/verity-image
AGENT     := $(BUILD)/verity-init
STATIC_AGENT := $(BUILD)/static/verity-init

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)

FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))

.PHONY: all check check-unit check-cli check-vm check-fuzz demo install static clean help \
        deps lint fuzz bench check-sanitize
.DEFAULT_GOAL := all

all: $(IMAGE) $(AGENT)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIBVERITY): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(IMAGE): $(BUILD)/verity-init/verity-image.o $(LIBVERITY)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_IMAGE)

$(AGENT): $(BUILD)/verity-init/verity-init.o $(LIBVERITY)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_AGENT)

# --- static agent -----------------------------------------------------------------------------
# glibc linked statically (klibc cannot link libdevmapper/libblkid); crypto from the kernel.
STATIC_CFLAGS := $(BASE_CFLAGS) -Os -g -ffunction-sections -fdata-sections -DVERITY_STATIC \
                 -I$(STATIC_DEPS)/include $(PKG_CFLAGS)
STATIC_OBJS := $(LIB_SRCS:%.c=$(BUILD)/static/%.o) $(BUILD)/static/verity-init/verity-init.o
STATIC_LIBS := $(STATIC_DEPS)/lib/libdevmapper.a /usr/lib/$(shell $(CC) -dumpmachine)/libblkid.a \
               /usr/lib/$(shell $(CC) -dumpmachine)/libsodium.a

$(BUILD)/static/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(STATIC_CFLAGS) -MMD -MP -c $< -o $@

$(STATIC_DEPS)/lib/libdevmapper.a:
	build-aux/static-deps.sh $(STATIC_DEPS)

$(STATIC_AGENT): $(STATIC_OBJS) $(STATIC_DEPS)/lib/libdevmapper.a
	$(CC) -static -Wl,--gc-sections -o $@ $(STATIC_OBJS) $(STATIC_LIBS) -lpthread -lm
	cp $@ $@.debug
	strip --strip-all $@

static: $(STATIC_AGENT)

# --- tests ------------------------------------------------------------------------------------
$(BUILD)/tests/unit/%: tests/unit/%.c $(LIBVERITY)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBVERITY) $(LIBS_CMOCKA) $(LIBS_IMAGE) $(LIBS_AGENT)

deps:
	tests/deps.sh

check-unit: $(UNIT_BINS)
	tests/unit/run.sh $(UNIT_BINS)

check-cli: all
	BUILD=$(abspath $(BUILD)) tests/cli/run.sh

check-vm: all static
	BUILD=$(abspath $(BUILD)) tests/vm/run.sh

check: deps
	$(MAKE) all static
	$(MAKE) check-unit
	$(MAKE) check-cli
	$(MAKE) check-vm

demo: deps
	$(MAKE) all static
	BUILD=$(abspath $(BUILD)) tests/vm/demo.sh

bench: all static
	BUILD=$(abspath $(BUILD)) tests/bench/format.sh

install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(DRACUTDIR)/90verity-init
	if [ -x $(STATIC_AGENT) ]; then install -m 0755 $(STATIC_AGENT) $(DESTDIR)$(SBINDIR)/verity-init; \
	else install -m 0755 $(AGENT) $(DESTDIR)$(SBINDIR)/verity-init; fi
	install -m 0755 $(IMAGE) $(DESTDIR)$(BINDIR)/verity-image
	install -m 0755 dracut-module/*.sh $(DESTDIR)$(DRACUTDIR)/90verity-init/

clean:
	rm -rf $(BUILD)

help:
	@echo "verity-init make targets:"
	@echo "  all (default)   build/verity-image (host tool) and build/verity-init (dynamic agent)"
	@echo "  static          build/static/verity-init: the fully static, stripped agent"
	@echo "  check           install missing packages, build, run unit, cli and vm tests"
	@echo "  check-unit      cmocka unit tests of lib/"
	@echo "  check-cli       shunit2 tests of the programs' command lines"
	@echo "  check-vm        boot scenarios in QEMU (Debian kernel, real dm-verity)"
	@echo "  demo            boot a verified root in QEMU, then a tampered one that is refused"
	@echo "  bench           benchmarks under tests/bench/ (ratios against veritysetup)"
	@echo "  install         install the programs and the dracut module"
	@echo "                  (DESTDIR, PREFIX=$(PREFIX), SBINDIR, BINDIR, DRACUTDIR=$(DRACUTDIR))"
	@echo "  clean           remove $(BUILD)/"
	@echo "Variables: SANITIZE=1 builds with ASan+UBSan into $(BUILD)/sanitize; BUILD=dir"

-include $(LIB_OBJS:.o=.d) $(STATIC_OBJS:.o=.d) $(BUILD)/verity-init/verity-image.d $(BUILD)/verity-init/verity-init.d
