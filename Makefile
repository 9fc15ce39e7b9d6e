# Lastset — the two commands a newcomer needs are `make demo` and `make test` (see README.md).
SWIFT ?= swift

.PHONY: setup build demo demo-stop test check-systemd format

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
	$(SWIFT) test
	.ci/check-systemd.sh

check-systemd:
	.ci/check-systemd.sh

format:
	$(SWIFT) format --in-place --recursive Sources Tests Benchmarks Package.swift

.PHONY: bench
## Builds release and runs the benchmarks (C libmodbus loop, pymodbus, per-register; ~10 min): docs/BENCHMARKS.md.
bench:
	Benchmarks/run.sh
