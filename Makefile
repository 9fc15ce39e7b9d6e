# Lastset — the two commands a newcomer needs are `make demo` and `make test` (see README.md).
SWIFT ?= swift

.PHONY: setup build demo demo-stop test check-systemd format install console console-screenshots

setup:
	scripts/setup.sh

build: setup
	$(SWIFT) build

## Installs what is missing, builds, and runs the main job on the demo config (capture press-a, apply to press-b).
demo: build
	scripts/demo.sh

demo-stop:
	scripts/demo-stop.sh

## Installs what is missing, builds, runs every test and the systemd unit checks.
test: setup
	$(SWIFT) build --build-tests
	# The suite takes well under a minute; a hung peer must fail the run, not stall it.
	timeout --kill-after=30 1200 $(SWIFT) test
	.ci/check-systemd.sh
	# The unit under the host's real systemd, booted as PID 1 in fresh namespaces (~15 s).
	timeout --kill-after=10 180 .ci/systemd-boot-test.sh "$$($(SWIFT) build --show-bin-path)"

check-systemd:
	.ci/check-systemd.sh

## Builds the console's files (Console/) into lastsetd: regenerates Sources/LastsetService/ConsoleAssets.swift.
console:
	scripts/embed-console.py

## Runs the console's browser test and keeps its screenshots in docs/console/ (for docs/CONSOLE.md).
console-screenshots: build
	$(SWIFT) build --build-tests
	LASTSET_SCREENSHOTS=$(CURDIR)/docs/console $(SWIFT) test --filter ConsoleBrowserTests

format:
	$(SWIFT) format --in-place --recursive Sources Tests Benchmarks Fuzz Package.swift

.PHONY: fuzz soak
## libFuzzer on every fuzz target (Fuzz/Targets) for FUZZ_SECONDS each (default 60), from the seed corpus
## Fuzz/corpus/<target>/; prints executions and crashes per target, exits 1 on a crash. docs/RELIABILITY.md.
fuzz: setup
	scripts/fuzz.sh

## The daemon under load for SOAK_MINUTES (default 10): SOAK_DEVICES simulators polled at 200 ms and a loop of
## CLI jobs; prints RSS, fds and threads per minute, fails on growth after the warm-up. docs/RELIABILITY.md.
soak: setup
	scripts/soak.sh

.PHONY: bench bench-fleet
## Fleet figures (per-capture commit cost, a 200 pages × 20 versions sync between two hosts; ~1 min).
bench-fleet:
	$(SWIFT) build -c release --product lastset-fleet-bench
	$$($(SWIFT) build -c release --show-bin-path)/lastset-fleet-bench

## Builds release and runs the benchmarks (C libmodbus loop, pymodbus, per-register; ~10 min): docs/BENCHMARKS.md.
bench:
	Benchmarks/run.sh

PREFIX ?= /usr/local
## Release build installed to $(PREFIX)/bin, the unit to /etc/systemd/system, the example config to
## /etc/lastset/lastset.json (only when none exists), the USB serial drivers to /etc/modules-load.d/lastset.conf.
## Then: systemctl daemon-reload && systemctl enable --now lastsetd
install:
	$(SWIFT) build -c release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)/etc/systemd/system $(DESTDIR)/etc/lastset $(DESTDIR)/etc/modules-load.d
	install -m 0644 systemd/lastset-modules.conf $(DESTDIR)/etc/modules-load.d/lastset.conf
	install -m 0755 $$($(SWIFT) build -c release --show-bin-path)/lastsetd $$($(SWIFT) build -c release --show-bin-path)/lastset $$($(SWIFT) build -c release --show-bin-path)/lastset-sim $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 systemd/lastsetd.service $(DESTDIR)/etc/systemd/system/lastsetd.service
	[ -e $(DESTDIR)/etc/lastset/lastset.json ] || install -m 0644 Config/lastset.json $(DESTDIR)/etc/lastset/lastset.json
