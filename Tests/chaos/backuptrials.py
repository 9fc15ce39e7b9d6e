#!/usr/bin/env python3
"""Scheduled backups under randomized operations (issue 23, part 4; docs/AS-FOUND.md): the real lastsetd backs up one
press (a pymodbus peer with a frame log, a small per-request delay) every second, while the harness changes values at
the press (mbpoll, unit 247), captures and applies the page through the API, and SIGKILLs the daemon (sometimes in
the middle of an apply) and starts it again.

  backuptrials.py --bin DIR --steps N --seed S     N seeded randomized steps (make backup-trials: 300)

Checked at the end, from the press's own frame log (every request, in order, with what it wrote) and mbpoll:

  (1) a backup never writes: every write frame of the daemon (unit 1) lies inside an apply the harness made;
  (2) every as-found record holds exactly what the press held when the backup read it (the writes before that read,
      in the frame log's order);
  (3) a record is kept only when something changed, and records nothing that did not: each change is a register
      written since the record before, and no record is without a change (the first aside);
  (4) each change is credited as the frame log says: the last write to the register since the record before came
      from mbpoll → "by nobody Lastset knows"; from the daemon → the audit job of that apply, whose record says it
      left that value (a write of an apply the daemon was killed in may be credited to nobody: its outcome is not
      known);
  (5) every record has its audit record (kind backup, result archived, the same job) and every such audit record
      its record: a kill never leaves one without the other;
  (6) nothing is missed: after a quiet spell the newest record of the page is what mbpoll reads.

Exit 1 on a violation (seed and work directory kept), 2 when the harness cannot run."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
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

PAGE = [100 + i for i in range(6)]  # heating: six u16 registers
MODEL = 200
PRINCIPAL = "policy:backup"
STEPS = [("panel", 5), ("apply", 2), ("capture", 1), ("wait", 2), ("kill", 1), ("killApply", 1)]


class Violation(Exception):
    pass


class World:
    def __init__(self, args, workdir: str):
        self.args = args
        self.workdir = workdir
        self.rng = random.Random(f"lastset-backup:{args.seed}")
        self.port = free_port()
        self.initial = {a: self.rng.randrange(0, 0xFFFF) for a in PAGE}
        words = {"0": [MODEL]} | {str(a): [v] for a, v in self.initial.items()}
        with open(os.path.join(workdir, "values.json"), "w") as f:
            json.dump(words, f)
        self.frame_log = os.path.join(workdir, "frames.jsonl")
        open(self.frame_log, "w").close()
        out = open(os.path.join(workdir, "press.out"), "wb")
        self.press = subprocess.Popen(
            [os.path.join(REPO, ".venv/bin/python"), os.path.join(REPO, "Tests/peers/pymodbus_server.py"), "--tcp",
             f"127.0.0.1:{self.port}", "--values", os.path.join(workdir, "values.json"), "--frame-log", self.frame_log,
             "--delay-ms", "15", "--fault-free-unit", str(INSPECT)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ, PYTHONUNBUFFERED="1"),
            preexec_fn=die_with_harness)
        out.close()
        wait_until(lambda: "READY" in open(os.path.join(workdir, "press.out")).read(), "press READY")
        self.frames = FrameReader(self.frame_log, "py")
        self.daemon = Daemon("lastsetd", workdir, args.bin)
        self.daemon.write_config(self.config())
        self.daemon.start()
        self.api = API(self.daemon.socket_path)
        # Daemon write windows: (start, end, killed) of every apply; the daemon's writes must fall inside one.
        self.windows: list[tuple[float, float, bool]] = []
        self.counts = {name: 0 for name, _ in STEPS}
        self.captured = False

    def config(self) -> dict:
        return {
            "version": 1, "asFoundHistory": 100_000,
            "devices": [{"id": "press", "endpoint": f"tcp://127.0.0.1:{self.port}", "unit": 1, "pages": ["heating"],
                         "backup": "1s", "quirks": {"timeout": "2s", "retries": 1}}],
            "pages": [{"id": "heating", "identity": [{"registerId": "model", "address": 0, "type": "u16"}],
                       "registers": [{"registerId": f"heating.r{a}", "address": a, "type": "u16"} for a in PAGE]}],
        }

    def held(self) -> dict[int, int]:
        return dict(zip(PAGE, mbpoll(self.port, PAGE[0], len(PAGE))))

    def job(self, kind: str) -> dict:
        """A capture or apply through the API, waited for; retried while a backup holds the press."""
        path = "/v1/pages/heating/capture?wait=1" if kind == "capture" else "/v1/pages/heating/apply?wait=1"
        for _ in range(200):
            start = time.time()
            r = self.api.post(path, {"device": "press"})
            if r.status == 409 and r.code == "device_busy":
                time.sleep(0.05)
                continue
            if r.status != 200:
                raise HarnessError(f"{kind}: {r}")
            if kind == "apply":
                self.windows.append((start, time.time(), False))
            return r.json()
        raise HarnessError(f"{kind}: the press stayed busy")

    def restart(self):
        self.daemon.kill()
        self.daemon.start()

    def step(self, name: str):
        if name == "panel":
            address = self.rng.choice(PAGE)
            now = self.held()[address]
            value = self.rng.choice([v for v in (self.rng.randrange(0, 0xFFFF) for _ in range(3)) if v != now] or [now ^ 1])
            mbpoll(self.port, address, write=[value])
        elif name == "capture":
            self.job("capture")
            self.captured = True
        elif name == "apply":
            if not self.captured:
                self.step("capture")
            self.job("apply")
        elif name == "wait":
            time.sleep(self.rng.uniform(0.3, 1.5))
        elif name == "kill":
            time.sleep(self.rng.uniform(0, 1.2))
            self.restart()
        elif name == "killApply":
            if not self.captured:
                self.step("capture")
            start = time.time()
            r = self.api.post("/v1/pages/heating/apply", {"device": "press"})
            if r.status == 202:
                time.sleep(self.rng.uniform(0, 0.15))
                self.daemon.kill()
                # A frame the killed daemon sent may reach the press's log after its death (it waits in the socket
                # while the press delays the request before it): the window lasts until the next daemon is up, which
                # starts no apply of its own.
                self.daemon.start()
                self.windows.append((start, time.time(), True))
            elif not (r.status == 409 and r.code == "device_busy"):
                raise HarnessError(f"apply: {r}")
        self.counts[name] += 1

    # ------------------------------------------------------------------ the checks

    def records(self) -> list[dict]:
        listing = self.api.get("/v1/devices/press/as-found?page=heating&limit=10000").json()
        numbers = sorted(r["number"] for r in listing["records"])
        if numbers != list(range(1, len(numbers) + 1)):
            raise Violation(f"(5) record numbers are not 1…{len(numbers)}: {numbers[:20]}")
        return [self.api.get(f"/v1/devices/press/as-found/heating/{n}").json() for n in numbers]

    def check(self) -> str:
        # (6) a quiet spell, then the newest record is what the press holds.
        held = self.held()
        time.sleep(3.5)
        records = self.records()
        if not records:
            raise Violation("no as-found record at all")
        newest = {v["address"]: int(v["valueData"], 16) for v in records[-1]["values"]}
        if newest != held:
            raise Violation(f"(6) the newest record {records[-1]['number']} holds {newest}, the press {held}")
        frames = [r for r in self.frames.poll() if r["kind"] == "frame"]
        self.no_stray_writes(frames)
        audit = self.backup_audit()
        replays = self.replay_audit()
        reads = [f for f in frames if f["unit"] == 1 and f["fc"] in (3, 4) and f["address"] <= PAGE[0] < f["address"] + f["count"]]
        previous_read = None
        for k, record in enumerate(records):
            read = self.read_of(record, reads)
            found = {v["address"]: int(v["valueData"], 16) for v in record["values"]}
            expected = self.state_before(frames, read["seq"])
            if found != expected:
                raise Violation(f"(2) record {record['number']} holds {found}; the press held {expected} at its read")
            if (record["number"] == 1) != (k == 0):
                raise Violation(f"(3) record {record['number']} at position {k}")
            self.check_changes(record, frames, previous_read, read, replays)
            if record["job"] not in audit:
                raise Violation(f"(5) record {record['number']} (job {record['job']}) has no audit record")
            audit[record["job"]] = None
            previous_read = read
        left = [job for job, r in audit.items() if r is not None]
        if left:
            raise Violation(f"(5) archived backup audit records without a record: {left[:5]}")
        changes = [c for r in records for c in r["changes"]]
        credited = sum(1 for c in changes if c.get("by"))
        return (f"{len(records)} records, {len(changes)} changes ({credited} by Lastset jobs, {len(changes) - credited} by "
                f"nobody Lastset knows) checked against {len(frames)} frames")

    def no_stray_writes(self, frames: list[dict]):
        for f in frames:
            if f["unit"] != 1 or f["fc"] not in (5, 6, 15, 16):
                continue
            if not any(s - 0.01 <= f["t"] <= e + 0.01 for s, e, _ in self.windows):
                near = sorted(self.windows, key=lambda w: abs(w[0] - f["t"]))[:2]
                raise Violation(f"(1) a write frame of the daemon outside every apply: {f}; nearest applies "
                                f"(start, end, killed): {near}")

    def backup_audit(self) -> dict:
        records = self.api.get("/v1/audit?kind=backup&limit=10000").json()["records"]
        return {r["job"]: r for r in records if r["result"] == "archived"}

    def replay_audit(self) -> dict:
        records = self.api.get("/v1/audit?kind=replay&limit=10000").json()["records"]
        return {r["job"]: r for r in records if r["result"] != "started"}

    @staticmethod
    def read_of(record: dict, reads: list[dict]) -> dict:
        """The backup's own page read: the last read of the page before the record's time (the job held the press)."""
        taken = iso(record["takenAt"])
        before = [r for r in reads if r["t"] <= taken + 0.002]
        if not before:
            raise Violation(f"record {record['number']}: no read of the page before {record['takenAt']}")
        return before[-1]

    def state_before(self, frames: list[dict], seq: int) -> dict[int, int]:
        state = dict(self.initial)
        for f in frames:
            if f["seq"] >= seq:
                break
            self.apply_write(state, f)
        return state

    @staticmethod
    def apply_write(state: dict, f: dict):
        if f["fc"] in (6, 16) and f.get("exception") is None:
            for i, w in enumerate(f["values"] or ()):
                if f["address"] + i in state:
                    state[f["address"] + i] = w

    def check_changes(self, record: dict, frames: list[dict], previous: dict | None, read: dict, replays: dict):
        if previous is None:
            if record["changes"]:
                raise Violation(f"(3) the first record lists changes: {record['changes']}")
            return
        if not record["changes"]:
            raise Violation(f"(3) record {record['number']} was kept though nothing changed")
        last: dict[int, dict] = {}
        for f in frames:
            if previous["seq"] < f["seq"] < read["seq"] and f["fc"] in (6, 16) and f.get("exception") is None:
                for i in range(len(f["values"] or ())):
                    last[f["address"] + i] = f
        for change in record["changes"]:
            address = change["after"]["address"]
            writer = last.get(address)
            if writer is None:
                raise Violation(f"(3) record {record['number']}: {change['registerId']} changed with no write since")
            by = change.get("by")
            if writer["unit"] == INSPECT:
                if by is not None:
                    raise Violation(f"(4) record {record['number']}: {change['registerId']} set at the press (mbpoll), "
                                    f"credited to {by}")
                continue
            killed = any(s - 0.01 <= writer["t"] <= e + 0.01 and k for s, e, k in self.windows)
            if by is None:
                if not killed:
                    raise Violation(f"(4) record {record['number']}: {change['registerId']} written by an apply, "
                                    f"credited to nobody")
                continue
            replay = replays.get(by["job"])
            written = [r for r in (replay or {}).get("registers", []) if r["registerId"] == change["registerId"]]
            if not replay or not written or written[0].get("after") != change["after"]["value"]:
                raise Violation(f"(4) record {record['number']}: {change['registerId']} credited to job {by['job']}, "
                                f"whose record says {written or replay}")

    def stop(self):
        self.daemon.stop()
        if self.press.poll() is None:
            self.press.terminate()
            self.press.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.randrange(1, 1_000_000)
    workdir = tempfile.mkdtemp(prefix="lastset-backup-")
    world = None
    try:
        world = World(args, workdir)
        started = time.monotonic()
        names, weights = zip(*STEPS)
        for _ in range(args.steps):
            world.step(world.rng.choices(names, weights)[0])
        summary = world.check()
        print(f"seed {args.seed}: {args.steps} steps in {time.monotonic() - started:.0f} s, 0 violations; "
              + ", ".join(f"{k} {v}" for k, v in world.counts.items()) + f"; {summary}")
        world.stop()
        shutil.rmtree(workdir, ignore_errors=True)
        return 0
    except (Violation, HarnessError) as e:
        kind, status = ("VIOLATION", 1) if isinstance(e, Violation) else ("harness", 2)
        print(f"{kind} (seed {args.seed}): {e}\nwork directory kept: {workdir}", file=sys.stderr)
        if world:
            print(world.daemon.log_tail(3000), file=sys.stderr)
            world.stop()
        return status


if __name__ == "__main__":
    sys.exit(main())
