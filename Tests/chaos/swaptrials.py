#!/usr/bin/env python3
"""Replacement restore under randomized swaps (issue 23, part 3; docs/REPLACEMENT.md): the real lastsetd polls one
press (a pymodbus peer with identity registers, a serial number and an FC43 identity) under `replacement:
"restore"`, and the harness puts other presses in its place on the same port, or changes it in place.

  swaptrials.py --bin DIR --trials N --seed S     N seeded randomized trials (make swap-trials: 200)
  swaptrials.py --bin DIR --bench N               N timed swaps to a blank replacement (make bench-swap: 50)

Each trial draws one of: a replacement (another serial, blank registers), the same press back at factory values,
a value changed at the press (mbpoll), a used replacement (another serial, one value of its own), another model,
another revision, the same press reconnected unchanged. Checked from the presses' own frame logs (the daemon's
requests are unit 1; the harness's mbpoll reads and writes are unit 247) and mbpoll:

  (1) a press of another model or revision receives no write, ever;
  (2) after a value changed at the press, or on a used replacement, no write until the harness puts things back;
  (3) a blank replacement and a reset press get the page's last verified version back (mbpoll reads it), by one
      restore job of `policy:replacement` that succeeded, writing only the page's registers;
  (4) an unchanged reconnect receives no write, and exactly one fingerprint read (FC03 at 0, 3 registers) per poll.

The bench measures, per swap, the time from the replacement answering (its READY) to the restore job's start
(target: within 2 poll intervals) and to its verified end (target: 2 poll intervals + the job's own time), and
prints p50/p95. Exit 1 on a violation (seed, trial and work directory kept), 2 when the harness cannot run."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from chaoslib.api import API  # noqa: E402
from chaoslib.frames import FrameReader  # noqa: E402
from chaoslib.inspect_unit import INSPECT, iso, mbpoll  # noqa: E402
from chaoslib.procs import Daemon, HarnessError, die_with_harness, free_port, wait_until  # noqa: E402

PAGE = [100 + i for i in range(8)]  # heating: eight u16 registers
BLANK = 0xFFFF
PRINCIPAL = "policy:replacement"
VARIANTS = [("replaced", 3), ("reset", 2), ("local", 2), ("used", 1), ("model", 2), ("revision", 2), ("same", 1)]


class Violation(Exception):
    pass


class Press:
    """A pymodbus press on 127.0.0.1:port: model at 0, serial number at 1–2, the page at 100…, an FC43 identity."""

    def __init__(self, workdir: str, python: str, port: int, model: int, serial: int, revision: str, values: list[int]):
        self.dir = tempfile.mkdtemp(prefix="press-", dir=workdir)
        words = {"0": [model], "1": [serial >> 16, serial & 0xFFFF]}
        words.update({str(a): [v] for a, v in zip(PAGE, values)})
        with open(os.path.join(self.dir, "values.json"), "w") as f:
            json.dump(words, f)
        with open(os.path.join(self.dir, "identity.json"), "w") as f:
            json.dump({"VendorName": "Acme Presses", "ProductCode": "PRS-200", "MajorMinorRevision": revision}, f)
        self.log_path = os.path.join(self.dir, "frames.jsonl")
        open(self.log_path, "w").close()
        out = open(os.path.join(self.dir, "out"), "wb")
        self.proc = subprocess.Popen(
            [python, os.path.join(REPO, "Tests/peers/pymodbus_server.py"), "--tcp", f"127.0.0.1:{port}", "--values",
             os.path.join(self.dir, "values.json"), "--identity", os.path.join(self.dir, "identity.json"), "--frame-log",
             self.log_path, "--fault-free-unit", str(INSPECT)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ, PYTHONUNBUFFERED="1"),
            preexec_fn=die_with_harness)
        out.close()
        self.serial, self.model, self.revision = serial, model, revision
        self.reader = FrameReader(self.log_path, "py")

        def ready():
            if self.proc.poll() is not None:
                raise HarnessError(f"press on {port} exited: {open(os.path.join(self.dir, 'out')).read()[-2000:]}")
            return "READY" in open(os.path.join(self.dir, "out")).read()

        wait_until(ready, f"press READY on {port}")
        self.ready_at = time.time()

    def frames(self, unit: int = 1) -> list[dict]:
        return [r for r in self.reader.poll() if r["kind"] == "frame" and r["unit"] == unit]

    def writes(self) -> list[dict]:
        return [r for r in self.frames() if r["fc"] in (6, 16)]

    def fingerprint_reads(self) -> int:
        return sum(1 for r in self.frames() if r["fc"] == 3 and r["address"] == 0 and r["count"] == 3)

    def page_reads(self) -> int:
        return sum(1 for r in self.frames() if r["fc"] == 3 and r["address"] == PAGE[0])

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class World:
    def __init__(self, args, workdir: str):
        self.args = args
        self.workdir = workdir
        self.python = os.path.join(REPO, ".venv/bin/python")
        self.port = free_port()
        self.poll = args.poll_ms / 1000
        self.rng = random.Random(f"lastset-swap:{args.seed}")
        self.good = [self.rng.randrange(0, 0xFFFF) for _ in PAGE]
        self.known_serial = 100_000
        self.next_serial = 200_000
        self.press = Press(workdir, self.python, self.port, 200, self.known_serial, "3.1.4", self.good)
        self.daemon = Daemon("lastsetd", workdir, args.bin)
        self.daemon.write_config(self.config())
        self.daemon.start()
        self.api = API(self.daemon.socket_path)
        self.cli("capture", "heating", "--from", "press")
        self.cli("apply", "heating", "--to", "press")
        wait_until(lambda: "machine press: fingerprint recorded" in self.daemon.log_tail(1_000_000), "fingerprint recorded")

    def config(self) -> dict:
        return {
            "version": 1,
            "devices": [{
                "id": "press", "endpoint": f"tcp://127.0.0.1:{self.port}", "unit": 1, "pages": ["heating"],
                "poll": f"{self.args.poll_ms}ms", "replacement": "restore",
                "serialNumber": [{"registerId": "serial", "address": 1, "type": "u32"}]}],
            "pages": [{
                "id": "heating",
                "identity": [{"registerId": "model", "address": 0, "type": "u16"},
                             {"object": "MajorMinorRevision", "match": "^3\\."}],
                "registers": [{"registerId": f"heating.r{a}", "address": a, "type": "u16"} for a in PAGE]}],
        }

    def cli(self, *arguments: str) -> str:
        run = subprocess.run([os.path.join(self.args.bin, "lastset"), "--socket", self.daemon.socket_path, *arguments],
                             capture_output=True, text=True, timeout=120)
        if run.returncode != 0:
            raise HarnessError(f"lastset {' '.join(arguments)}: {run.stdout}{run.stderr}")
        return run.stdout

    def log(self) -> str:
        return self.daemon.log_tail(100_000_000)

    def restore_jobs(self) -> list[dict]:
        return [j for j in self.api.get("/v1/jobs").json() if j.get("who") == PRINCIPAL]

    def swap(self, model: int, serial: int, revision: str, values: list[int]) -> Press:
        old = self.press.proc.pid
        self.press.stop()
        stopped = time.time()
        shutil.rmtree(self.press.dir, ignore_errors=True)
        self.press = Press(self.workdir, self.python, self.port, model, serial, revision, values)
        if os.environ.get("SWAP_DEBUG"):
            print(f"swap: {old} stopped {stopped:.3f}, {self.press.proc.pid} ready {self.press.ready_at:.3f} serial {serial}"
                  f" values {values[:2]}", file=sys.stderr)
        return self.press

    def polls(self, n: int):
        """Waits until the press has seen `n` more polls (page reads)."""
        start = self.press.page_reads()
        wait_until(lambda: self.press.page_reads() >= start + n, f"{n} polls")

    def new_serial(self) -> int:
        self.next_serial += self.rng.randrange(1, 1000)
        return self.next_serial

    def elsewhere_value(self, address: int) -> int:
        while True:
            v = self.rng.randrange(0, 0xFFFF)
            if v != self.good[PAGE.index(address)]:
                return v

    def restored(self, jobs_before: int, what: str) -> dict:
        wait_until(lambda: mbpoll(self.port, PAGE[0], len(PAGE)) == self.good, f"{what}: the page restored (mbpoll)")
        wait_until(lambda: len(self.restore_jobs()) > jobs_before
                   and all(j["state"] == "finished" for j in self.restore_jobs()), f"{what}: the restore job's end")
        jobs = self.restore_jobs()
        if len(jobs) != jobs_before + 1:
            raise Violation(f"{what}: {len(jobs) - jobs_before} restore jobs for one finding")
        job = jobs[0]
        if not all(p["status"] == "succeeded" for p in job["applyAll"]["pages"]):
            raise Violation(f"{what}: the restore job did not succeed: {job['applyAll']}")
        stray = [w for w in self.press.writes() if not set(range(w["address"], w["address"] + w["count"])) <= set(PAGE)]
        if stray:
            raise Violation(f"{what}: writes outside the page: {stray}")
        return job

    def untouched(self, what: str, found: str, values: list[int], written: int = 0):
        """The daemon reports `found`, then four more polls send no write (beyond the `written` before the trial)."""
        wait_until(lambda: found in self.log()[self.mark:], f"{what}: the daemon to report {found!r}")
        self.polls(4)
        if len(self.press.writes()) > written:
            raise Violation(f"{what}: {len(self.press.writes()) - written} writes: {self.press.writes()[written:][:3]}")
        if mbpoll(self.port, PAGE[0], len(PAGE)) != values:
            raise Violation(f"{what}: the press's values changed")

    def back_to_known(self):
        """The known press, holding the good values, back in place; waits until the finding is resolved."""
        mark = len(self.log())
        self.swap(200, self.known_serial, "3.1.4", self.good)
        wait_until(lambda: "resolved" in self.log()[mark:], "the finding resolved")

    def trial(self, index: int, variant: str) -> None:
        what = f"trial {index} ({variant})"
        self.mark = len(self.log())  # what the daemon reports for this trial comes after this
        jobs = len(self.restore_jobs())
        blank = [BLANK] * len(PAGE)
        if variant == "replaced":
            serial = self.new_serial()
            self.swap(200, serial, "3.1.4", blank)
            self.restored(jobs, what)
            self.known_serial = serial
            wait_until(lambda: "this machine is the device's from now on" in self.log().rsplit("restore job", 1)[-1],
                       f"{what}: the replacement adopted")
        elif variant == "reset":
            self.swap(200, self.known_serial, "3.1.4", blank)
            self.restored(jobs, what)
        elif variant == "local":
            address = self.rng.choice(PAGE)
            value = self.elsewhere_value(address)
            written = len(self.press.writes())
            mbpoll(self.port, address, write=[value])
            values = list(self.good)
            values[PAGE.index(address)] = value
            self.untouched(what, f"changedElsewhere (heating: heating.r{address})", values, written)
            mark = len(self.log())
            mbpoll(self.port, address, write=[self.good[PAGE.index(address)]])
            wait_until(lambda: "resolved" in self.log()[mark:], f"{what}: the drift resolved")
        elif variant == "used":
            address = self.rng.choice(PAGE)
            values = list(blank)
            values[PAGE.index(address)] = self.elsewhere_value(address)
            self.swap(200, self.new_serial(), "3.1.4", values)
            self.untouched(what, f"holds values set elsewhere: heating.r{address}", values)
            self.back_to_known()
        elif variant == "model":
            self.swap(300 + self.rng.randrange(0, 50), self.new_serial(), "3.1.4", blank)
            self.untouched(what, "anotherModel (model", blank)
            self.back_to_known()
        elif variant == "revision":
            revision = self.rng.choice(["4.0.0", "2.9.1", "13.0"])
            serial = self.rng.choice([self.known_serial, self.new_serial()])
            self.swap(200, serial, revision, blank)
            self.untouched(what, "anotherModel (fc43:MajorMinorRevision)", blank)
            self.back_to_known()
        elif variant == "same":
            self.swap(200, self.known_serial, "3.1.4", self.good)
            self.polls(5)
            if self.press.writes():
                raise Violation(f"{what}: writes to an unchanged press: {self.press.writes()[:3]}")
            fingerprints, pages = self.press.fingerprint_reads(), self.press.page_reads()
            if abs(fingerprints - pages) > 1:
                raise Violation(f"{what}: {fingerprints} fingerprint reads for {pages} polls")
        if len(self.restore_jobs()) != jobs + (1 if variant in ("replaced", "reset") else 0):
            raise Violation(f"{what}: restore jobs went from {jobs} to {len(self.restore_jobs())}")

    def stop(self):
        self.daemon.stop()
        self.press.stop()


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def bench(world: World, swaps: int) -> int:
    latency, total, own = [], [], []
    for i in range(swaps):
        jobs = len(world.restore_jobs())
        serial = world.new_serial()
        press = world.swap(200, serial, "3.1.4", [BLANK] * len(PAGE))
        job = world.restored(jobs, f"swap {i}")
        world.known_serial = serial
        started, finished = iso(job["startedAt"]), iso(job["finishedAt"])
        latency.append(started - press.ready_at)
        total.append(finished - press.ready_at)
        own.append(finished - started)
        wait_until(lambda: "this machine is the device's from now on" in world.log().rsplit("restore job", 1)[-1],
                   "the replacement adopted")
    bound = [2 * world.poll + o for o in own]
    within = sum(1 for t, b in zip(total, bound) if t <= b)
    print(f"{swaps} swaps, poll {world.args.poll_ms} ms, page of {len(PAGE)} registers")
    for name, values in (("answering -> restore job started", latency), ("restore job's own time", own),
                         ("answering -> verified restore", total)):
        print(f"  {name:36} p50 {percentile(values, 50) * 1000:7.0f} ms   p95 {percentile(values, 95) * 1000:7.0f} ms"
              f"   max {max(values) * 1000:7.0f} ms")
    print(f"  within 2 poll intervals + the job's own time: {within} of {swaps}"
          f" (p95 of the time past the job's own: {percentile([t - o for t, o in zip(total, own)], 95) * 1000:.0f} ms"
          f" against {2 * world.poll * 1000:.0f} ms)")
    return 0 if percentile([t - o for t, o in zip(total, own)], 95) <= 2 * world.poll else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--trials", type=int, default=0)
    parser.add_argument("--bench", type=int, default=0)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--poll-ms", type=int, default=200)
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.randrange(1, 1_000_000)
    workdir = tempfile.mkdtemp(prefix="lastset-swap-")
    world = None
    try:
        world = World(args, workdir)
        if args.bench:
            status = bench(world, args.bench)
        else:
            counts: dict[str, int] = {}
            started = time.monotonic()
            names, weights = zip(*VARIANTS)
            for i in range(args.trials):
                variant = world.rng.choices(names, weights)[0]
                world.trial(i, variant)
                counts[variant] = counts.get(variant, 0) + 1
            restores = len(world.restore_jobs())
            print(f"seed {args.seed}: {args.trials} trials in {time.monotonic() - started:.0f} s, 0 violations; "
                  + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
                  + f"; {restores} restore jobs (one per replacement or reset)")
            status = 0
        world.stop()
        shutil.rmtree(workdir, ignore_errors=True)
        return status
    except (Violation, HarnessError) as e:
        kind, status = ("VIOLATION", 1) if isinstance(e, Violation) else ("harness", 2)
        print(f"{kind} (seed {args.seed}): {e}\nwork directory kept: {workdir}", file=sys.stderr)
        if world:
            print(world.daemon.log_tail(3000), file=sys.stderr)
            world.stop()
        return status

if __name__ == "__main__":
    sys.exit(main())
