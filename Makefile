# geopipe: `make demo` and `make test` set up everything on a fresh Debian machine.
SWIFT ?= swift
DATA ?= ../shared/data
FUZZ_SECONDS ?= 60
BIN := .build/debug/geopipe
RELEASE_BIN := .build/release/geopipe

.PHONY: all deps build release static gazetteer demo test bench fuzz lint clean install uninstall \
	deb check-install

# Where `make install` puts geopipe; DESTDIR stages the tree for a package.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(DESTDIR)$(PREFIX)/bin
DATADIR := $(DESTDIR)$(PREFIX)/share/geopipe
DOCDIR := $(DESTDIR)$(PREFIX)/share/doc/geopipe
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

all: build gazetteer

deps:
	@Scripts/install-deps.sh

build: deps
	$(SWIFT) build

# Release builds link the Swift runtime statically: the binary needs nothing from the
# toolchain at run time, only the system libraries (see `make deb` for the list).
release: deps static

static:
	$(SWIFT) build -c release --static-swift-stdlib

# The default gazetteer (GeoNames cities15000, shipped in Data/geonames, and the Natural Earth
# 1:10m countries in Data/naturalearth) that geocode, reverse-geocode and search use when no
# --gazetteer is given.
gazetteer: build
	$(BIN) gazetteer build --default

demo: gazetteer
	Scripts/demo.sh $(BIN)

test: deps
	$(SWIFT) format lint --strict -r Sources Tests
	Scripts/gen-module-graph.py --check
	Scripts/check-target-builds.py
	$(SWIFT) build
	$(SWIFT) test
	Scripts/test-tile-areas.sh $(BIN)
	Scripts/test-tile-limits.sh $(BIN)
	Scripts/test-tiles-read.sh $(BIN)
	Scripts/test-overlay.sh $(BIN)
	Scripts/test-simplify.sh $(BIN)
	Scripts/test-countries.sh $(BIN)
	Scripts/test-basemaps.sh $(BIN)
	Scripts/test-geoparquet.sh $(BIN)
	Scripts/browser-check/run.sh $(BIN)
	Scripts/with-postgres.sh Scripts/test-postgis.sh $(BIN)
	Scripts/test-dask.sh $(BIN)

# Sharded runs on a local Spark; skipped when pyspark or Java is missing.
.PHONY: test-spark
test-spark: build
	Scripts/test-spark.sh $(BIN)

bench: release
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) bench/run.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) SWIFT=$(SWIFT) bench/cluster.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) SWIFT=$(SWIFT) bench/geometry.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) bench/shared-borders.sh
	GEOPIPE=$(RELEASE_BIN) bench/validate.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) SWIFT=$(SWIFT) bench/geocode.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) bench/render.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) bench/tiles.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) bench/tiles-join.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) bench/formats.sh
	GEOPIPE=$(RELEASE_BIN) bench/geoparquet.sh
	GEOPIPE=$(RELEASE_BIN) bench/expressions.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) bench/join.sh
	GEOPIPE=$(RELEASE_BIN) Scripts/with-postgres.sh bench/postgis.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) bench/shards.sh

fuzz: deps
	Scripts/fuzz.sh $(FUZZ_SECONDS)

# The binary, the default gazetteer's GeoNames files and the Natural Earth basemap (with
# their licences), man pages and bash, zsh and fish completions. The binary finds its data in
# ../share/geopipe beside itself.
install: static
	install -d $(BINDIR) $(DATADIR) $(DOCDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR)
	install -m 755 $(RELEASE_BIN) $(BINDIR)/geopipe
	cp -R Data/geonames Data/naturalearth $(DATADIR)/
	chmod -R u=rwX,go=rX $(DATADIR)
	install -m 644 README.md LICENSE docs/*.md $(DOCDIR)/
	$(RELEASE_BIN) help --man > $(MANDIR)/geopipe.1
	for command in $$($(RELEASE_BIN) --help | sed -n '/^COMMANDS:/,/^$$/p' \
	    | awk 'NF && $$1 != "COMMANDS:" {print $$1}'); do \
	  $(RELEASE_BIN) help --man $$command > $(MANDIR)/geopipe-$$command.1 || exit 1; \
	done
	$(RELEASE_BIN) completions bash > $(BASHDIR)/geopipe
	$(RELEASE_BIN) completions zsh > $(ZSHDIR)/_geopipe
	$(RELEASE_BIN) completions fish > $(FISHDIR)/geopipe.fish

uninstall:
	rm -f $(BINDIR)/geopipe $(MANDIR)/geopipe.1 $(MANDIR)/geopipe-*.1 $(BASHDIR)/geopipe \
	  $(ZSHDIR)/_geopipe $(FISHDIR)/geopipe.fish
	rm -rf $(DATADIR) $(DOCDIR)

# A Debian package of the installed tree, in .build/deb; Depends lists the packages of the
# shared libraries the binary links.
deb: static
	Scripts/make-deb.sh

# Installs into a temporary prefix and a Debian package into a scratch root, and runs both
# from another folder with the source tree out of reach (a release build: a few minutes).
check-install:
	Scripts/test-install.sh

lint:
	$(SWIFT) format lint --strict -r Sources Tests

clean:
	rm -rf .build .build-fuzz out
