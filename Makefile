# Builds and installs tracectl (README, "Install tracectl").
#
#   make install                      # release build, into /usr/local/bin
#   make install PREFIX=$HOME/.local  # into ~/.local/bin
#   make install-all PREFIX=...       # tracectl and every companion (tracectl-scan, tracectl-fleet) declared
#   make uninstall PREFIX=...
#
# `install` copies tracectl and whichever companions are already built beside it; `install-all`
# builds the companions first. `tracectl scan` and `tracectl push` run them from beside tracectl or
# from PATH, so they go into the same folder. DESTDIR is prepended for staged installs.
# On Linux, SWIFTFLAGS=--static-swift-stdlib gives binaries that run without a Swift toolchain.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
CONFIGURATION ?= release
SWIFT ?= swift
SWIFTFLAGS ?=
COMPANIONS = tracectl-scan tracectl-fleet
# The companions this checkout declares as products.
DECLARED = $(foreach c,$(COMPANIONS),$(if $(shell grep -l '"$(c)"' Package.swift 2>/dev/null),$(c)))
# Where SwiftPM puts the products; BIN_PATH=... installs products built elsewhere.
BIN_PATH ?= $(shell $(SWIFT) build -c $(CONFIGURATION) --show-bin-path)

.PHONY: build build-all install install-all uninstall

build:
	$(SWIFT) build -c $(CONFIGURATION) $(SWIFTFLAGS) --product tracectl

build-all: build
	@for c in $(DECLARED); do echo "$(SWIFT) build -c $(CONFIGURATION) --product $$c"; \
	  $(SWIFT) build -c $(CONFIGURATION) $(SWIFTFLAGS) --product $$c || exit 1; done

install: build
	install -d "$(DESTDIR)$(BINDIR)"
	install -m 755 "$(BIN_PATH)/tracectl" "$(DESTDIR)$(BINDIR)/tracectl"
	@for c in $(COMPANIONS); do \
	  if [ -x "$(BIN_PATH)/$$c" ]; then echo "install $$c"; install -m 755 "$(BIN_PATH)/$$c" "$(DESTDIR)$(BINDIR)/$$c" || exit 1; \
	  else echo "$$c not built: skipped (make install-all builds it)"; fi; done

install-all: build-all install

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/tracectl" $(foreach c,$(COMPANIONS),"$(DESTDIR)$(BINDIR)/$(c)")
