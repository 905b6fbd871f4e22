# verity-init — plain GNU make, no autotools.
# `make help` lists the targets.

PREFIX    ?= /usr
SBINDIR   ?= $(PREFIX)/sbin
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
DRACUTDIR ?= /usr/lib/dracut/modules.d
LIBEXECDIR ?= $(PREFIX)/lib/verity-init
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
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

LIBS_IMAGE := $(shell $(PKG_CONFIG) --libs libcrypto libsodium 2>/dev/null) -lpthread
LIBS_AGENT := $(shell $(PKG_CONFIG) --libs devmapper blkid libsodium 2>/dev/null)
LIBS_CMOCKA := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

# lib/: the core. Every program links the archive; the linker takes only the objects it uses,
# so host-only code (OpenSSL backend) never reaches the static agent.
LIB_SRCS  := $(sort $(wildcard lib/*/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIBVERITY := $(BUILD)/libverity.a

IMAGE     := $(BUILD)/verity-image
AGENT     := $(BUILD)/verity-init
STATIC_AGENT := $(BUILD)/static/verity-init

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)

FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))

.PHONY: all check check-unit unit-bins check-cli check-vm check-fuzz demo install static clean help \
        deps deps-demo lint fuzz bench bench-distro check-sanitize deb
.DEFAULT_GOAL := all

all: $(IMAGE) $(AGENT)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIBVERITY): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# The host tool, verity-init/image/: verity-image.c (the command table), its commands image-*.c and
# the program helpers prog.c. Never linked into the agent (AGENT_SRCS below).
IMAGE_PROG_SRCS := $(sort $(wildcard verity-init/image/*.c))
IMAGE_PROG_OBJS := $(IMAGE_PROG_SRCS:verity-init/%.c=$(BUILD)/prog/%.o)

$(IMAGE): $(IMAGE_PROG_OBJS) $(LIBVERITY)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_IMAGE)

# Programs' objects live apart from the binaries: build/verity-init is the agent itself.
$(BUILD)/prog/%.o: verity-init/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# the agent, verity-init/agent/: main and its verbs (verity-init.c), PID 1 (pid1-early.c,
# pid1-boot.c), the core both runtimes share (agent.c), the trust steps (trust-steps.c), the dracut
# runtime and generator (dracut-*.c), their fail list walker, the A/B slot commands and boot
# (slot-*.c), the /usr step
AGENT_SRCS := $(sort $(wildcard verity-init/agent/*.c))
$(AGENT): $(AGENT_SRCS:verity-init/%.c=$(BUILD)/prog/%.o) $(LIBVERITY)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_AGENT)

# --- static agent -----------------------------------------------------------------------------
# glibc linked statically (klibc cannot link libdevmapper/libblkid); crypto from the kernel.
# no unwind tables for our own code (C, no exceptions, no backtrace()): 24 KB of the size budget
STATIC_CFLAGS := $(BASE_CFLAGS) -Os -g -fno-asynchronous-unwind-tables -ffunction-sections \
                 -fdata-sections -DVERITY_STATIC \
                 -I$(STATIC_DEPS)/include $(PKG_CFLAGS)
STATIC_OBJS := $(LIB_SRCS:%.c=$(BUILD)/static/%.o) $(AGENT_SRCS:verity-init/%.c=$(BUILD)/static/prog/%.o)
# libblkid.a and libsodium.a where the toolchain finds them (deferred: asked only when linking).
STATIC_LIBS = $(STATIC_DEPS)/lib/libdevmapper.a $(shell $(CC) -print-file-name=libblkid.a) \
              $(shell $(CC) -print-file-name=libsodium.a)

$(BUILD)/static/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(STATIC_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/static/prog/%.o: verity-init/%.c
	@mkdir -p $(dir $@)
	$(CC) $(STATIC_CFLAGS) -MMD -MP -c $< -o $@

# Without this Makefile's CFLAGS/LDFLAGS: make exports them, with -Werror, once they came from the
# environment (as under dpkg-buildpackage), and lvm2's configure checks fail under -Werror.
$(STATIC_DEPS)/lib/libdevmapper.a: build-aux/static-deps.sh
	env -u CFLAGS -u CPPFLAGS -u LDFLAGS build-aux/static-deps.sh $(STATIC_DEPS)

$(STATIC_AGENT): $(STATIC_OBJS) $(STATIC_DEPS)/lib/libdevmapper.a
	$(CC) -static -Wl,--gc-sections -o $@ $(STATIC_OBJS) $(STATIC_LIBS) -lpthread -lm
	cp $@ $@.debug
	strip --strip-all $@

static: $(STATIC_AGENT)

# --- tests ------------------------------------------------------------------------------------
$(BUILD)/tests/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIBVERITY)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBVERITY) $(LIBS_CMOCKA) $(LIBS_IMAGE) $(LIBS_AGENT)

deps:
	tests/deps.sh

# only the packages the demo uses (build, static agent, one QEMU boot): a fresh machine's first
# `make demo` does not wait for the whole test toolchain
deps-demo:
	tests/deps.sh --demo

check-unit: $(UNIT_BINS)
	tests/unit/run.sh $(UNIT_BINS)

# the unit tests' programs only (check-sanitize builds them one compiler per core first)
unit-bins: $(UNIT_BINS)

check-cli: all
	BUILD=$(abspath $(BUILD)) tests/cli/run.sh

check-vm: all static
	BUILD=$(abspath $(BUILD)) tests/vm/run.sh

# The whole suite: every layer runs even when an earlier one failed, then one summary line. The
# packages the build needs are installed first; the programs of the layers are then built, one
# compiler per core, while the rest of the packages (QEMU, the kernels, dracut, the linters...)
# are installed (their output in $(BUILD)/deps.log: the list here, the whole log if it failed);
# the layers then run one by one.
CHECK_LAYERS := check-unit check-cli check-sanitize check-fuzz lint check-vm
# `make -n check` runs the build's recipe line (it calls $(MAKE)): there it installs nothing
CHECK_DRY_RUN = $(findstring n,$(firstword -$(MAKEFLAGS)))
check:
	tests/deps.sh --build
	@deps=; if [ -n "$(CHECK_DRY_RUN)" ]; then echo "tests/deps.sh --rest >$(BUILD)/deps.log 2>&1 &"; \
	else mkdir -p $(BUILD); tests/deps.sh --rest >$(BUILD)/deps.log 2>&1 & deps=$$!; fi; \
	$(MAKE) -j$$(nproc) all static $(UNIT_BINS) $(FUZZ_BINS) || \
		{ built=failed; echo "check: the build failed (waiting for the package installation)" >&2; }; \
	if [ -n "$$deps" ]; then \
		if ! wait $$deps; then cat $(BUILD)/deps.log; \
			echo "check: installing the test packages failed ($(BUILD)/deps.log)" >&2; exit 1; fi; \
		grep '^deps.sh: installing:' $(BUILD)/deps.log || true; fi; \
	[ -z "$${built:-}" ]
	@failed=""; for t in $(CHECK_LAYERS); do \
		echo "=== make $$t"; \
		$(MAKE) --no-print-directory $$t || failed="$$failed $$t"; \
	done; \
	n=$$(echo $(CHECK_LAYERS) | wc -w); f=$$(echo $$failed | wc -w); \
	echo "check: $$((n - f)) passed, $$f failed$${failed:+ (failed:$$failed)}"; \
	[ -z "$$failed" ]

demo: deps-demo
	$(MAKE) all static
	BUILD=$(abspath $(BUILD)) tests/vm/demo.sh

bench: all static
	BUILD=$(abspath $(BUILD)) tests/bench/format.sh
	BUILD=$(abspath $(BUILD)) tests/bench/fec.sh
	BUILD=$(abspath $(BUILD)) tests/bench/boot.sh
	BUILD=$(abspath $(BUILD)) tests/bench/initramfs.sh

# Not part of bench: builds a Debian root with mmdebstrap (network) and boots it 4 x BENCH_RUNS times
bench-distro: all static
	BUILD=$(abspath $(BUILD)) tests/bench/distro.sh

MAN8 := verity-init.8 verity-image.8 verity-init-mkinitramfs.8 verity-init-mkuki.8

install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(DRACUTDIR)/90verity-init
	if [ -x $(STATIC_AGENT) ]; then install -m 0755 $(STATIC_AGENT) $(DESTDIR)$(SBINDIR)/verity-init; \
	else install -m 0755 $(AGENT) $(DESTDIR)$(SBINDIR)/verity-init; fi
	install -m 0755 $(IMAGE) $(DESTDIR)$(BINDIR)/verity-image
	install -m 0755 verity-init/mkinitramfs/verity-init-mkinitramfs.sh $(DESTDIR)$(SBINDIR)/verity-init-mkinitramfs
	install -m 0755 verity-init/mkinitramfs/verity-init-mkuki.sh $(DESTDIR)$(SBINDIR)/verity-init-mkuki
	install -m 0755 dracut-module/*.sh $(DESTDIR)$(DRACUTDIR)/90verity-init/
	install -m 0644 dracut-module/*.service $(DESTDIR)$(DRACUTDIR)/90verity-init/
	install -d $(DESTDIR)$(MANDIR)/man8
	install -m 0644 $(addprefix docs/,$(MAN8)) $(DESTDIR)$(MANDIR)/man8/
	install -d $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(SYSTEMDUNITDIR)/rauc.service.d
	sed 's|/usr/sbin/verity-init|$(SBINDIR)/verity-init|' rauc/verity-init-rauc-backend.sh \
		>$(DESTDIR)$(LIBEXECDIR)/verity-init-rauc-backend
	chmod 0755 $(DESTDIR)$(LIBEXECDIR)/verity-init-rauc-backend
	sed 's|/usr/lib/verity-init/|$(LIBEXECDIR)/|' rauc/rauc-verity-init.conf \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/rauc.service.d/verity-init.conf
	sed 's|/usr/sbin/verity-init|$(SBINDIR)/verity-init|' systemd/verity-init-mark-good.service \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/verity-init-mark-good.service
	sed 's|/usr/sbin/verity-init|$(SBINDIR)/verity-init|' systemd/verity-init-monitor.service \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/verity-init-monitor.service
	sed 's|/usr/sbin/verity-init|$(SBINDIR)/verity-init|' systemd/verity-init-managed-good.service \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/verity-init-managed-good.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/rauc.service.d/verity-init.conf \
		$(DESTDIR)$(SYSTEMDUNITDIR)/verity-init-mark-good.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/verity-init-monitor.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/verity-init-managed-good.service

# Removes exactly what install installs (same variables, same globs), then the module's directory
# unless it holds files of others; directories shared with the system (sbin, bin, man8) stay.
# tests/cli/install_test.sh checks that install + uninstall leave no file behind.
.PHONY: uninstall
UNINSTALL_FILES = $(SBINDIR)/verity-init $(BINDIR)/verity-image $(SBINDIR)/verity-init-mkuki \
	$(SBINDIR)/verity-init-mkinitramfs \
	$(patsubst dracut-module/%,$(DRACUTDIR)/90verity-init/%,$(wildcard dracut-module/*.sh dracut-module/*.service)) \
	$(addprefix $(MANDIR)/man8/,$(MAN8)) \
	$(LIBEXECDIR)/verity-init-rauc-backend $(SYSTEMDUNITDIR)/verity-init-mark-good.service \
	$(SYSTEMDUNITDIR)/verity-init-monitor.service $(SYSTEMDUNITDIR)/verity-init-managed-good.service \
	$(SYSTEMDUNITDIR)/rauc.service.d/verity-init.conf
uninstall:
	rm -f $(addprefix $(DESTDIR),$(UNINSTALL_FILES))
	for d in $(DRACUTDIR)/90verity-init $(LIBEXECDIR) $(SYSTEMDUNITDIR)/rauc.service.d; do \
		if [ -d $(DESTDIR)$$d ]; then rmdir --ignore-fail-on-non-empty $(DESTDIR)$$d; fi; done

# --- Debian packages --------------------------------------------------------------------------
# dpkg-buildpackage (debian/) in a copy of the tree: it writes the packages beside the tree it
# builds and cleans that tree first. libdevmapper.a is the one `make static` uses (STATIC_DEPS),
# so the packages build in seconds once that exists (debian/README.source).
DEBDIR    ?= $(BUILD)/deb
DEB_FLAGS ?= -us -uc -b -J
DEB_SRC   := $(DEBDIR)/verity-init
deb: $(STATIC_DEPS)/lib/libdevmapper.a
	rm -rf $(DEBDIR)
	mkdir -p $(DEB_SRC)
	tar -cf - --exclude-vcs --exclude=./build --exclude=./$(patsubst $(CURDIR)/%,%,$(abspath $(BUILD))) \
		--exclude=./debian/build . | tar -C $(DEB_SRC) -xf -
	# the package's own build (debian/rules) must not inherit this make's variables: a BUILD=
	# given here would override its BUILD := debian/build, which its clean step removes
	cd $(DEB_SRC) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD \
		STATIC_DEPS=$(abspath $(STATIC_DEPS)) dpkg-buildpackage $(DEB_FLAGS)
	@ls $(DEBDIR)/*.deb

# --- hardening ----------------------------------------------------------------------------------
# Static analysis (lint), libFuzzer targets and ASan/UBSan runs of the unit and cli layers
# (docs/security.md, docs/testing.md).
FUZZ_CC   ?= clang
FUZZ_TIME ?= 60
FUZZ_SMOKE_TIME ?= 5
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all
# lib/ is built for fuzzing with coverage instrumentation; warnings shown but not fatal there
# (gcc with -Werror is the gate for lib/), fatal in the fuzz targets themselves.
FUZZ_BASE := -std=c11 -D_GNU_SOURCE -Iinclude -O1 -g -fno-omit-frame-pointer $(PKG_CFLAGS)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/fuzz/%.o)
FUZZ_LIB  := $(BUILD)/fuzz/libverity.a
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
# check-sanitize: the SANITIZE=1 tree (also when this make already runs with SANITIZE=1).
SAN_BUILD := $(if $(filter 1,$(SANITIZE)),$(BUILD),$(BUILD)/sanitize)

$(BUILD)/fuzz/lib/%.o: lib/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_BASE) $(filter-out -Werror,$(WARN)) -fsanitize=fuzzer-no-link $(FUZZ_SAN) \
		-MMD -MP -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_BASE) $(WARN) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< $(FUZZ_LIB) \
		$(LIBS_IMAGE) $(LIBS_AGENT)

lint:
	build-aux/lint.sh

fuzz: $(FUZZ_BINS)
	tests/fuzz/run.sh $(FUZZ_TIME) $(FUZZ_BINS)

check-fuzz: $(FUZZ_BINS)
	tests/fuzz/run.sh $(FUZZ_SMOKE_TIME) $(FUZZ_BINS)

# debian_package_test is not run under the sanitizers: it builds the packages with
# dpkg-buildpackage from the tree, with their own flags, so it runs no sanitized program.
# Sanitizer reports go to files (a test expecting a failure exit must not hide one); any file
# there fails the run. Leak checking is on. Built with clang: gcc 12's libasan ignores log_path.
# A tree built by another compiler is cleaned first (mixed ASan runtimes do not link).
SAN_CC    ?= clang
SAN_ENV   = ASAN_OPTIONS=log_path=$$san/sanitizer-logs/asan:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1 \
	    UBSAN_OPTIONS=log_path=$$san/sanitizer-logs/ubsan:print_stacktrace=1:halt_on_error=1
check-sanitize:
	@san=$(abspath $(SAN_BUILD)); \
	if [ "$$(cat $$san/.sanitize-cc 2>/dev/null)" != "$(SAN_CC)" ]; then \
		rm -rf $$san/lib $$san/prog $$san/tests $$san/libverity.a $$san/verity-image $$san/verity-init; fi; \
	mkdir -p $$san && echo "$(SAN_CC)" >$$san/.sanitize-cc; \
	rm -rf $$san/sanitizer-logs && mkdir -p $$san/sanitizer-logs; \
	$(MAKE) -j$$(nproc) SANITIZE=1 CC=$(SAN_CC) BUILD=$(SAN_BUILD) all unit-bins || exit 1; \
	rc=0; $(SAN_ENV) CLI_SKIP=debian_package_test $(MAKE) SANITIZE=1 CC=$(SAN_CC) BUILD=$(SAN_BUILD) check-unit check-cli || rc=$$?; \
	if [ -n "$$(ls -A $$san/sanitizer-logs)" ]; then cat $$san/sanitizer-logs/*; \
		echo "check-sanitize: sanitizer reports above" >&2; exit 1; fi; \
	if [ $$rc -ne 0 ]; then echo "check-sanitize: tests failed under ASan+UBSan" >&2; exit 1; fi; \
	echo "check-sanitize: unit and cli layers clean under ASan+UBSan (no reports)"

-include $(FUZZ_LIB_OBJS:.o=.d)

clean:
	rm -rf $(BUILD)

help:
	@echo "verity-init make targets:"
	@echo "  all (default)   build/verity-image (host tool) and build/verity-init (dynamic agent)"
	@echo "  static          build/static/verity-init: the fully static, stripped agent"
	@echo "  check           install missing packages, build, then unit, cli, sanitize, fuzz, lint, vm"
	@echo "  check-unit      cmocka unit tests of lib/"
	@echo "  check-cli       shunit2 tests of the programs' command lines"
	@echo "  check-vm        boot scenarios in QEMU (Debian kernel, real dm-verity)"
	@echo "  demo            boot a verified root in QEMU, then a tampered one that is refused"
	@echo "                  (installs only the packages it uses: tests/deps.sh --demo)"
	@echo "  deps, deps-demo install the missing Debian packages: all for check, the demo's few"
	@echo "  bench           benchmarks under tests/bench/ (ratios against veritysetup)"
	@echo "  bench-distro    a Debian root booted through the standalone initramfs (default and"
	@echo "                  -f erofs), dracut + the module (shell, systemd) and dracut +"
	@echo "                  systemd-veritysetup (tests/bench/distro.sh,"
	@echo "                  BENCH_RUNS=3; make deb when stale; mmdebstrap and the network)"
	@echo "  lint            cppcheck + clang-tidy over the C sources (.clang-tidy), shellcheck over"
	@echo "                  every *.sh (build-aux/lint.sh), the layers of lib/ (build-aux/layers.sh)"
	@echo "  fuzz            libFuzzer targets tests/fuzz/fuzz_*.c, FUZZ_TIME=$(FUZZ_TIME) s each"
	@echo "  check-fuzz      replay the fuzz corpora, then fuzz each target $(FUZZ_SMOKE_TIME) s"
	@echo "  check-sanitize  unit + cli tests against an ASan+UBSan build ($(SAN_BUILD))"
	@echo "  install         install the programs (verity-init, verity-image,"
	@echo "                  verity-init-mkinitramfs, verity-init-mkuki), the man pages, the"
	@echo "                  dracut module, the A/B slot pieces (verity-init-mark-good.service,"
	@echo "                  RAUC's backend in LIBEXECDIR, a rauc.service drop-in), the"
	@echo "                  corruption monitor's verity-init-monitor.service, managed recovery's"
	@echo "                  verity-init-managed-good.service"
	@echo "                  (DESTDIR, PREFIX=$(PREFIX), SBINDIR, BINDIR, MANDIR,"
	@echo "                  DRACUTDIR=$(DRACUTDIR), LIBEXECDIR=$(LIBEXECDIR),"
	@echo "                  SYSTEMDUNITDIR=$(SYSTEMDUNITDIR))"
	@echo "  uninstall       remove exactly what install installs (same variables)"
	@echo "  deb             Debian packages verity-init, verity-init-dracut and verity-image in"
	@echo "                  $(DEBDIR)/ (dpkg-buildpackage $(DEB_FLAGS) in a copy of the tree)"
	@echo "  clean           remove $(BUILD)/"
	@echo "Variables: SANITIZE=1 builds with ASan+UBSan into $(BUILD)/sanitize; BUILD=dir"

-include $(LIB_OBJS:.o=.d) $(STATIC_OBJS:.o=.d) $(IMAGE_PROG_OBJS:.o=.d) \
	$(AGENT_SRCS:verity-init/%.c=$(BUILD)/prog/%.d)
