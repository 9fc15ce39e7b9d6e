#!/usr/bin/env python3
"""Lastset's chaos run: a seeded, reproducible randomized sequence of operations against the real lastsetd
(and a second one for fleet syncs) and four simulated machines, with every invariant checked after every
step from the machines' own frame logs and mbpoll reads (docs/RELIABILITY.md, "Chaos").

  chaos.py --seed N --seconds S        steps of seed N until S seconds have passed (then the figures);
                                       without --seed, a seed drawn at random (printed first)
  chaos.py --seed N --steps K          the first K steps of seed N (a failure's replay)
  chaos.py --seed N --only 3,17,42     just those steps of seed N (a shrunk failure's replay)
  chaos.py --regressions               every case in regressions.json (seeds that found a defect)
  chaos.py --regressions --seconds S   those, then a seeded run for what is left of S seconds (make test)

A failure prints the seed, the violated invariant, the steps (shrunk: steps dropped while it still fails)
and the command that replays it; the exit status is 1. Exit 2: the harness itself could not run."""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from chaoslib import model, codec  # noqa: E402
from chaoslib.procs import HarnessError  # noqa: E402
from chaoslib.steps import Runner, generate  # noqa: E402
from chaoslib.world import Violation, World  # noqa: E402


def initial_values(world: World, seed: int):
    """The reference machine (m1) starts configured: valid values on every page, drawn from the seed."""
    rng = random.Random(f"lastset-chaos-initial:{seed}")
    for page in model.pages(model.DEFAULT_VARIANT).values():
        for r in page["registers"]:
            if r.get("access") == "ro" or r.get("clone") is False:
                continue
            world.set_words("m1", r["address"], model.random_words(r, rng))


class Outcome:
    def __init__(self):
        self.violation: Violation | None = None
        self.failed_at: int | None = None
        self.ran: list[int] = []
        self.texts: dict[int, str] = {}
        self.stats: dict = {}
        self.seconds = 0.0
        self.workdir = ""


def run(args, seed: int, indices, seconds: float | None, quiet: bool = False, keep: bool = False) -> Outcome:
    """One run in a fresh world; its work directory is removed unless it failed and `keep` (never a shrink trial's)."""
    out = Outcome()
    world = World(args.bin, REPO, args.python, workdir=None, verbose=args.verbose and not quiet)
    out.workdir = world.workdir
    started = time.monotonic()
    failed = False
    try:
        world.start()
        initial_values(world, seed)
        runner = Runner(world)
        for i in indices:
            if seconds is not None and time.monotonic() - started > seconds:
                break
            step = generate(seed, i)
            out.ran.append(i)
            try:
                runner.run_step(step)
            finally:
                out.texts[i] = step.text
            if not quiet and (args.verbose or i % 25 == 0):
                print(f"step {i}: {step.text}", flush=True)
    except Violation as v:
        out.violation = v
        out.failed_at = out.ran[-1] if out.ran else None
        failed = True
    except HarnessError:
        failed = True
        if keep:
            print(f"work directory kept: {world.workdir}", file=sys.stderr)
        raise
    finally:
        out.stats = world.stats
        out.seconds = time.monotonic() - started
        world.stop(keep=failed and keep)
    return out


def steps_range(n):
    return range(n)


def shrink(args, seed: int, out: Outcome) -> tuple[list[int], Outcome]:
    """Drops steps (halves, then quarters, … then single steps) while the run still ends in a violation of the
    same invariant at the same last step; bounded by --shrink-runs and --shrink-seconds."""
    steps = list(out.ran)
    deadline = time.monotonic() + args.shrink_seconds
    last = steps[-1]
    prefix = steps[:-1]
    invariant = out.violation.invariant
    best = out
    runs = 0
    n = 2
    while prefix and runs < args.shrink_runs and time.monotonic() < deadline:
        chunk = max(1, len(prefix) // n)
        reduced = False
        for start in range(0, len(prefix), chunk):
            if runs >= args.shrink_runs or time.monotonic() >= deadline:
                break
            candidate = prefix[:start] + prefix[start + chunk:]
            runs += 1
            try:
                trial = run(args, seed, candidate + [last], None, quiet=True)
            except HarnessError as e:
                print(f"  shrink run {runs}: the harness could not run ({e}): counted as passing", flush=True)
                continue
            ok = trial.violation is not None and trial.failed_at == last and trial.violation.invariant == invariant
            print(f"  shrink run {runs}: {len(candidate) + 1} steps: {'still fails' if ok else 'passes'}", flush=True)
            if ok:
                prefix = candidate
                best = trial
                reduced = True
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(prefix), n * 2)
    return prefix + [last], best


def report_failure(args, seed: int, out: Outcome, shrunk: list[int] | None, best: Outcome | None):
    v = out.violation
    print("\n" + "=" * 100)
    print(f"CHAOS VIOLATION ({v.invariant}) at step {out.failed_at} of seed {seed}:\n  {v.text}")
    print(f"\nreplay:  make chaos CHAOS_SEED={seed} CHAOS_STEPS={out.failed_at + 1}")
    print(f"         Tests/chaos/chaos.py --seed {seed} --steps {out.failed_at + 1}")
    if shrunk is not None:
        print(f"\nminimal steps ({len(shrunk)} of {len(out.ran)}):  Tests/chaos/chaos.py --seed {seed} --only "
              f"{','.join(map(str, shrunk))}")
        texts = best.texts if best else out.texts
        for i in shrunk:
            print(f"  step {i}: {texts.get(i, out.texts.get(i, '?'))}")
        if best and best.violation:
            print(f"  → ({best.violation.invariant}) {best.violation.text}")
    print("=" * 100)


def figures(out: Outcome, seed: int) -> str:
    s = out.stats
    return (f"chaos seed {seed}: {len(out.ran)} steps in {out.seconds:.0f} s; {s['jobs']} jobs ({s['replays']} replays, "
            f"{s['dryRuns']} dry runs, {s['applyAll']} whole-machine, {s['captures']} captures), {s['imports']} imports, "
            f"{s['promotes']} promotes, {s['deletes']} deletes, {s['reloads']} reloads, {s['syncs']} syncs, "
            f"{s['faultChanges']} fault changes, {s['kills']} SIGKILLs; {s['frames']} frames ({s['writeFrames']} writes) "
            f"checked, {s['mbpollReads']} mbpoll reads; violations: {1 if out.violation else 0}")


def total(outs: list[Outcome]) -> str:
    """The figures of several runs together (make test: the regressions and the seeded run)."""
    keys = ["jobs", "replays", "frames", "writeFrames", "kills", "reloads", "syncs", "mbpollReads"]
    sums = {k: sum(o.stats.get(k, 0) for o in outs) for k in keys}
    return (f"chaos total: {len(outs)} runs, {sum(len(o.ran) for o in outs)} steps, {sums['jobs']} jobs "
            f"({sums['replays']} replays), {sums['frames']} frames ({sums['writeFrames']} writes), {sums['kills']} SIGKILLs, "
            f"{sums['reloads']} reloads, {sums['syncs']} syncs, {sums['mbpollReads']} mbpoll reads; "
            f"violations: {sum(1 for o in outs if o.violation)}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=None, help="the seed (default: drawn at random and printed)")
    p.add_argument("--steps", type=int, help="run the first K steps")
    p.add_argument("--seconds", type=float, help="run steps until this many seconds have passed (with --regressions: "
                                                  "in all, the regressions included)")
    p.add_argument("--only", help="comma-separated step indexes to run (a shrunk failure)")
    p.add_argument("--regressions", action="store_true", help="run every case of regressions.json")
    p.add_argument("--bin", default=None, help="directory of the built lastsetd, lastset-sim (swift build --show-bin-path)")
    p.add_argument("--python", default=os.path.join(REPO, ".venv/bin/python"), help="python with the pinned pymodbus")
    p.add_argument("--no-shrink", action="store_true")
    p.add_argument("--shrink-runs", type=int, default=40, help="at most this many runs while shrinking (default 40)")
    p.add_argument("--shrink-seconds", type=float, default=900, help="at most this long shrinking (default 900)")
    p.add_argument("--min-seconds", type=float, default=15,
                   help="with --regressions --seconds: the seeded run gets at least this long (default 15)")
    p.add_argument("--keep", action="store_true", help="keep the work directory of a failed run (logs, data)")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--figures", help="also write the figures line to this file")
    args = p.parse_args()
    # SIGTERM (a timeout, make interrupted) ends the run through its clean-up: every process stopped, the
    # work directory removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.bin is None:
        args.bin = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, capture_output=True, text=True,
                                  check=True).stdout.strip()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 1_000_000)
    cases = []  # (seed, step indexes, seconds, what it found)
    if args.regressions:
        with open(os.path.join(HERE, "regressions.json")) as f:
            for c in json.load(f):
                idx = c["only"] if "only" in c else list(range(c["steps"]))
                cases.append((c["seed"], idx, None, c.get("found", "")))
        if args.seconds is not None:
            cases.append((seed, None, args.seconds, ""))
    elif args.only:
        cases.append((seed, [int(x) for x in args.only.split(",")], None, ""))
    elif args.steps is not None:
        cases.append((seed, list(range(args.steps)), None, ""))
    else:
        cases.append((seed, None, args.seconds or 60.0, ""))
    started = time.monotonic()
    status = 0
    outs = []
    for seed, idx, seconds, found in cases:
        if found:
            print(f"chaos: regression seed {seed} ({len(idx)} steps): {found}", flush=True)
        if idx is None:
            if args.regressions:
                seconds = max(args.min_seconds, seconds - (time.monotonic() - started))
            print(f"chaos: seed {seed} for {seconds:.0f} s (replay: make chaos CHAOS_SEED={seed})", flush=True)
            import itertools
            idx = itertools.count()
        try:
            out = run(args, seed, idx, seconds, keep=args.keep)
        except HarnessError as e:
            print(f"chaos: the harness could not run (seed {seed}): {e}", file=sys.stderr)
            traceback.print_exc()
            return 2
        outs.append(out)
        line = figures(out, seed)
        print(line, flush=True)
        if args.figures:
            with open(args.figures, "a") as f:
                f.write(line + "\n")
        if out.violation:
            print(f"chaos: violation ({out.violation.invariant}) at step {out.failed_at} of seed {seed}: "
                  f"{out.violation.text}", flush=True)
            shrunk = best = None
            if not args.no_shrink and not found:
                print("shrinking…", flush=True)
                shrunk, best = shrink(args, seed, out)
            report_failure(args, seed, out, shrunk, best)
            if args.keep:
                print(f"work directory kept: {out.workdir}")
            status = 1
    if len(outs) > 1:
        print(total(outs) + f" in {time.monotonic() - started:.0f} s", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
