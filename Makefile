# geopipe: `make demo` and `make test` set up everything on a fresh Debian machine.
SWIFT ?= swift
DATA ?= ../shared/data
FUZZ_SECONDS ?= 60
BIN := .build/debug/geopipe
RELEASE_BIN := .build/release/geopipe

.PHONY: all deps build release gazetteer demo test bench fuzz lint clean

all: build gazetteer

deps:
	@Scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# The default gazetteer (GeoNames cities15000, shipped in Data/geonames) that geocode,
# reverse-geocode and search use when no --gazetteer is given.
gazetteer: build
	$(BIN) gazetteer build --default

demo: gazetteer
	Scripts/demo.sh $(BIN)

test: deps
	$(SWIFT) format lint --strict -r Sources Tests
	Scripts/gen-module-graph.py --check
	$(SWIFT) build
	$(SWIFT) test
	Scripts/test-tile-areas.sh $(BIN)
	Scripts/browser-check/run.sh $(BIN)

bench: release
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) bench/run.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) SWIFT=$(SWIFT) bench/cluster.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) SWIFT=$(SWIFT) bench/geometry.sh
	GEOPIPE=$(RELEASE_BIN) bench/validate.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) SWIFT=$(SWIFT) bench/geocode.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) bench/render.sh
	GEOPIPE=$(RELEASE_BIN) DATA=$(DATA) bench/tiles.sh

fuzz: deps
	Scripts/fuzz.sh $(FUZZ_SECONDS)

lint:
	$(SWIFT) format lint --strict -r Sources Tests

clean:
	rm -rf .build .build-fuzz out
