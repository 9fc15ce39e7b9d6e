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
	# About two minutes; a hung peer fails the run (20 min bound); a failure ends with a summary (crash, test).
	SWIFT=$(SWIFT) scripts/run-tests.sh
	# The chaos harness (Tests/chaos, ~60 s): the seeds of regressions.json, then seed 45229 (CI stays reproducible);
	# a violation prints the seed and the shrunk steps. CHAOS_SEED=N fixes the seed.
	timeout --kill-after=30 600 Tests/chaos/chaos.py --bin "$$($(SWIFT) build --show-bin-path)" --regressions \
		--seconds 60 --shrink-seconds 240 --seed $(or $(CHAOS_SEED),45229)
	# SIGKILL rounds (Tests/chaos/killrounds.py, ~10 s): 40 rounds of lastsetd killed during a capture or replay and
	# restarted, its records checked from lastset.db, the API and the frame logs; KILL_SEED=N fixes the seed.
	timeout --kill-after=10 180 Tests/chaos/killrounds.py --bin "$$($(SWIFT) build --show-bin-path)" --rounds 40 \
		--seed $(or $(KILL_SEED),2020)
	.ci/check-systemd.sh
	# The unit under the host's real systemd, booted as PID 1 in fresh namespaces (~15 s).
	timeout --kill-after=10 180 .ci/systemd-boot-test.sh "$$($(SWIFT) build --show-bin-path)"

check-systemd:
	.ci/check-systemd.sh

## Builds the console's files (Console/) into lastsetd: regenerates Sources/LastsetService/API/ConsoleAssets.swift.
console:
	scripts/embed-console.py

## Runs the console's browser test and keeps its screenshots in docs/console/ (for docs/CONSOLE.md).
console-screenshots: build
	$(SWIFT) build --build-tests
	LASTSET_SCREENSHOTS=$(CURDIR)/docs/console $(SWIFT) test --filter ConsoleBrowserTests

format:
	$(SWIFT) format --in-place --recursive Sources Tests Benchmarks Fuzz Package.swift

.PHONY: chaos
CHAOS_SECONDS ?= 1800
## The chaos run (issue 19): random captures, applies, imports, reloads, syncs, faults and SIGKILLs against the real
## lastsetd and simulated machines for CHAOS_SECONDS (default 1800) of seed CHAOS_SEED (default: random, printed),
## every invariant checked from the machines' own frame logs and mbpoll; CHAOS_STEPS=K replays the first K steps.
## A violation prints the seed and the shrunk step list, keeps the work directory and exits 1. docs/RELIABILITY.md.
chaos: setup
	$(SWIFT) build
	Tests/chaos/chaos.py --bin "$$($(SWIFT) build --show-bin-path)" --seconds $(CHAOS_SECONDS) --keep \
		$(if $(CHAOS_SEED),--seed $(CHAOS_SEED)) $(if $(CHAOS_STEPS),--steps $(CHAOS_STEPS))

.PHONY: kill-rounds
KILL_ROUNDS ?= 1000
## SIGKILL rounds (issue 20): KILL_ROUNDS (default 1000) rounds of a capture, replay or dry run started and lastsetd
## SIGKILLed at a random instant or at the k-th write frame, restarted, every record checked from lastset.db
## (read-only), the API and the machines' frame logs + mbpoll; seed KILL_SEED (default: random, printed). A violation
## prints the seed and round, keeps the work directory and exits 1. docs/RELIABILITY.md, "SIGKILL rounds".
kill-rounds: setup
	$(SWIFT) build
	Tests/chaos/killrounds.py --bin "$$($(SWIFT) build --show-bin-path)" --rounds $(KILL_ROUNDS) \
		$(if $(KILL_SEED),--seed $(KILL_SEED))

.PHONY: swap-trials bench-swap
SWAP_TRIALS ?= 200
## Replacement restore under SWAP_TRIALS (default 200) seeded randomized swaps of seed SWAP_SEED (default 23):
## replacements, resets, local changes, used replacements, other models and revisions, unchanged reconnects, each
## checked from the presses' frame logs and mbpoll (Tests/chaos/swaptrials.py; docs/REPLACEMENT.md, ~4 min).
swap-trials: setup
	$(SWIFT) build
	Tests/chaos/swaptrials.py --bin "$$($(SWIFT) build --show-bin-path)" --trials $(SWAP_TRIALS) --seed $(or $(SWAP_SEED),23)

## 50 swaps to a blank replacement, polled every 500 ms: from the replacement answering to the restore job's start and
## to its verified end, p50/p95 (docs/BENCHMARKS.md, "Replacement restore"; ~1 min).
bench-swap: setup
	$(SWIFT) build
	Tests/chaos/swaptrials.py --bin "$$($(SWIFT) build --show-bin-path)" --bench 50 --poll-ms 500 --seed 50

.PHONY: backup-trials
BACKUP_STEPS ?= 300
## Scheduled backups under BACKUP_STEPS (default 300) seeded randomized steps of seed BACKUP_SEED (default 46): values
## changed at the press (mbpoll), captures, applies, SIGKILLs (some in an apply), each record and the credit of each
## change checked against the press's frame log (Tests/chaos/backuptrials.py; docs/AS-FOUND.md, ~2 min).
backup-trials: setup
	$(SWIFT) build
	Tests/chaos/backuptrials.py --bin "$$($(SWIFT) build --show-bin-path)" --steps $(BACKUP_STEPS) --seed $(or $(BACKUP_SEED),46)

.PHONY: fuzz soak
## libFuzzer on every fuzz target (Fuzz/Targets) for FUZZ_SECONDS each (default 60), from the seed corpus
## Fuzz/corpus/<target>/; prints executions and crashes per target, exits 1 on a crash. docs/RELIABILITY.md.
fuzz: setup
	scripts/fuzz.sh

.PHONY: fuzz-changes
## The API fuzz of four-eyes change control (docs/CHANGE-CONTROL.md): CHANGE_FUZZ_SEQUENCES random call sequences
## (default 10,000; seed CHANGE_FUZZ_SEED, default 24) against a protected page, every answer checked against a model
## and every write frame counted on the simulators: 0 writes without a fresh approval, every stale approval refused.
CHANGE_FUZZ_SEQUENCES ?= 10000
CHANGE_FUZZ_SEED ?= 24
fuzz-changes: setup
	LASTSET_CHANGE_FUZZ_SEQUENCES=$(CHANGE_FUZZ_SEQUENCES) LASTSET_CHANGE_FUZZ_SEED=$(CHANGE_FUZZ_SEED) \
		$(SWIFT) test --filter ChangeControlFuzzTests

## The daemon under load for SOAK_MINUTES (default 10): SOAK_DEVICES simulators polled at 200 ms and a loop of
## CLI jobs; prints RSS, fds and threads per minute, fails on growth after the warm-up. docs/RELIABILITY.md.
soak: setup
	scripts/soak.sh

.PHONY: bench bench-fleet bench-poll
## Fleet figures (per-capture commit cost, a 200 pages × 20 versions sync between two hosts, ~4 min; then the growth
## policy before/after: 20 hosts × 200 pages × 20 versions and a year of audit records, then a second year, ~15 min).
bench-fleet:
	$(SWIFT) build -c release --product lastset-fleet-bench
	$$($(SWIFT) build -c release --show-bin-path)/lastset-fleet-bench
	$$($(SWIFT) build -c release --show-bin-path)/lastset-fleet-bench growth

## Builds release and runs the benchmarks (C libmodbus loop, pymodbus, per-register; ~10 min): docs/BENCHMARKS.md.
bench:
	Benchmarks/run.sh

## 1,000 devices (10 simulators × 100 units) polled every second: lastsetd's CPU and RSS over 60 s (~2 min).
bench-poll:
	Benchmarks/run.sh --only poll

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
