#!/usr/bin/env python3
"""SIGKILL rounds (issue 20): the real lastsetd killed at a random instant of a capture or a replay, restarted,
and its records checked from the database itself (read-only), the API and the machines' own frame logs + mbpoll
(docs/RELIABILITY.md, "SIGKILL rounds").

  killrounds.py --bin DIR --rounds N --seed S

Each round (drawn from the seed and the round's index): set the machines' values and faults, start a capture,
a replay (onError stop / continue / rollback, a version or the latest) or a dry run without waiting — or no job
at all — then SIGKILL lastsetd after a random delay (0 to 1.3 x the job's typical duration, learnt from the jobs
that finished first) or exactly while the target machine holds the job's k-th write frame unanswered
(lastset-sim `hold k`), restart it (recovery runs before READY=1), and check:

  (1) every capture the API acknowledged as archived before the kill is listed with a good checksum and holds
      what the machine held; every version in template_version has its `archived` record in audit_record and
      every `archived` record its version (or the version was pruned past `history`, oldest first); the
      archived numbers of a page are 1..N, each once;
  (2) no replay_journal (or replay_event) row survives the restart; every `started` intent has exactly one
      outcome (its own or the `interrupted` record of recovery), every outcome that wrote has its intent;
      the audit log only grows;
  (3) an interrupted replay's record lists as possibly written (`written` set, or `inDoubt`) every register a
      logged write frame of the job touched, and each beforeWrite/afterWrite step whose frame was logged as
      sent (`ok` or `inDoubt`); whatever it says was answered was logged; the device page is marked
      unverified (GET /v1/devices) by that job until a later replay succeeds or a dry run clears it;
  (4) a replay the API answered as succeeded before the kill: device_page_state records its version and job,
      and the machine holds the template's words (mbpoll); any succeeded outcome has its device state;
  (5) no write frame reached a machine without a committed intent for it: every logged write frame belongs to
      the round's replay, whose `started` record is in the database and older than the frame, on its target;
      none came from the restarted daemon.

Figures at the end; exit 1 on a violation (the seed, the round, and the work directory kept), 2 when the
harness itself cannot run. Every process dies with the harness; loopback only; ports picked at run time."""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from chaoslib import codec, model  # noqa: E402
from chaoslib.api import API  # noqa: E402
from chaoslib.frames import describe, is_write  # noqa: E402
from chaoslib.procs import INSPECT_UNIT, Daemon, HarnessError, Machine, wait_until  # noqa: E402

PAGES = model.pages(model.DEFAULT_VARIANT)
PAGE_ORDER = list(model.PAGE_ORDER)
MODEL_NAME = "PRS-200"
HISTORY = 6  # small, so that the capture commit's pruning runs often
# device id -> (machine, quirks). dev-2 writes 4 registers a frame and reads 10: more frames, more instants.
DEVICES = {"dev-1": ("m1", {}), "dev-2": ("m2", {"maxWriteRegisters": 4, "maxReadRegisters": 10})}
UNIT = 1
DELAYS_MS = [0, 0, 0, 1, 2, 3, 5]
ANSWERED = ("unverified", "verified", "mismatch", "changedLater", "rejected")
DEFAULT_ESTIMATE = {"capture": (0.02, 6), "replay": (0.03, 16), "dry": (0.015, 6)}


class Violation(Exception):
    def __init__(self, invariant: str, text: str):
        super().__init__(f"({invariant}) {text}")
        self.invariant = invariant
        self.text = text


def ms_of_iso(text: str) -> float:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def page_span(page: dict) -> tuple[int, int]:
    lo = min(r["address"] for r in page["registers"])
    hi = max(r["address"] + codec.length(r) for r in page["registers"])
    return lo, hi - lo


def writable(reg: dict) -> bool:
    return reg.get("access") != "ro" and reg.get("clone") is not False


class Job:
    """The round's request: what was asked, what the API said of it, and what the database kept of it."""

    def __init__(self, kind: str, page: str, device: str, body: dict):
        self.kind = kind  # capture | replay | dry
        self.page = page
        self.device = device
        self.machine = DEVICES[device][0]
        self.body = body
        self.id = None  # the API's job id
        self.acked = None  # the finished JobInfo the API answered before the kill, if it did
        self.posted_at = 0.0

    def describe(self) -> str:
        what = {"capture": "capture", "replay": "apply", "dry": "dry run"}[self.kind]
        opts = {k: v for k, v in self.body.items() if k not in ("device", "dryRun")}
        return f"{what} {self.page} {'from' if self.kind == 'capture' else 'to'} {self.device} ({self.machine}) {opts or ''}".strip()


class Rounds:
    def __init__(self, args):
        self.args = args
        self.seed = args.seed
        self.workdir = tempfile.mkdtemp(prefix="lastset-killrounds-")
        self.machines: dict[str, Machine] = {}
        self.daemon: Daemon | None = None
        self.api: API | None = None
        self.content: dict[str, dict[int, int]] = {}  # what each machine holds, from sets and its logged writes
        self.faults: dict[str, tuple] = {}
        self.clamps: dict[str, dict[int, int]] = {}
        self.audit_seen = 0  # audit_record rows checked (seq 1..audit_seen)
        self.archived: dict[str, set[int]] = {p: set() for p in PAGE_ORDER}  # numbers an `archived` record named
        self.outcome_of: dict[str, str] = {}  # job -> result of its one outcome
        self.intents: set[str] = set()
        self.marks: dict[tuple[str, str], tuple | None] = {(d, p): ("clear",) for d in DEVICES for p in PAGE_ORDER}
        self.estimates: dict[tuple, list[float]] = {}
        self.stats = {k: 0 for k in [
            "rounds", "captures", "replays", "dryRuns", "idle", "killCapture", "killReplay", "killDry", "killHold",
            "killAfterFinish", "killIdle", "notStarted", "interrupted", "interruptedChecked", "ackedCaptures",
            "ackedReplays", "killedReplayNothing", "killedReplayInterrupted", "killedReplayOutcome", "frames", "writeFrames", "mbpollReads", "versions", "auditRecords"]}
        self.round = -1
        self.trace: list[str] = []

    # ------------------------------------------------------------------ setup

    def start(self):
        for name in ("m1", "m2"):
            m = Machine(name, "sim", self.workdir, self.args.bin, self.args.python, REPO)
            self.machines[name] = m
            self.content[name] = {}
            self.faults[name] = ()
            self.clamps[name] = {}
            words = {}
            for a, w in enumerate(codec.encode(MODEL_NAME, model.IDENTITY[0])):
                words[a] = w
            for page in PAGES.values():
                for r in page["registers"]:
                    for i, w in enumerate(codec.unset_patterns(r)[0]):
                        words[r["address"] + i] = w
            self.set_words(name, words)
        self.daemon = Daemon("lastsetd", self.workdir, self.args.bin)
        self.daemon.write_config(self.config())
        self.api = API(self.daemon.socket_path, timeout=60)
        self.daemon.start()

    def config(self) -> dict:
        devices = []
        for dev, (machine, quirks) in DEVICES.items():
            devices.append({"id": dev, "endpoint": f"tcp://127.0.0.1:{self.machines[machine].port}", "unit": UNIT,
                            "pages": PAGE_ORDER, "quirks": dict({"timeout": "3s", "retries": 1}, **quirks)})
        return {"version": 1, "history": HISTORY, "devices": devices, "pages": [PAGES[p] for p in PAGE_ORDER]}

    def stop(self, keep: bool):
        if self.daemon:
            self.daemon.stop()
        for m in self.machines.values():
            m.stop()
        if not keep:
            shutil.rmtree(self.workdir, ignore_errors=True)

    # ------------------------------------------------------------------ machines

    def set_words(self, machine: str, words: dict[int, int]):
        """Sets registers as the machine's panel would (no frame), in contiguous runs."""
        addrs = sorted(words)
        i = 0
        while i < len(addrs):
            j = i
            while j + 1 < len(addrs) and addrs[j + 1] == addrs[j] + 1:
                j += 1
            run = [words[a] for a in addrs[i:j + 1]]
            self.machines[machine].control(f"set {addrs[i]} {','.join(map(str, run))}")
            i = j + 1
        self.content[machine].update(words)

    def set_faults(self, machine: str, delay: int, clamps: dict[int, int]):
        key = (delay, tuple(sorted(clamps.items())))
        if self.faults[machine] == key:
            return
        flags = []
        if delay:
            flags += ["--delay-ms", str(delay)]
        for a, m in sorted(clamps.items()):
            flags += ["--clamp", f"{a}:{m}"]
        self.machines[machine].control("faults" + "".join(" " + f for f in flags))
        self.faults[machine] = key
        self.clamps[machine] = dict(clamps)

    def mbpoll(self, machine: str, start: int, count: int) -> dict[int, int]:
        """What the machine holds, read by an independent client on the fault-free unit (retried on a timeout).
        Returning means every request the machine received before this read was logged."""
        port = self.machines[machine].port
        for attempt in range(5):
            p = subprocess.run(["mbpoll", "-m", "tcp", "-a", str(INSPECT_UNIT), "-r", str(start + 1), "-c", str(count),
                                "-o", "10", "-1", "127.0.0.1", "-p", str(port)], capture_output=True, text=True, timeout=60)
            words = {}
            for line in p.stdout.splitlines():
                if line.startswith("["):
                    ref, _, rest = line.partition(":")
                    words[int(ref[1:-1]) - 1] = int(rest.split()[0]) & 0xFFFF
            if p.returncode == 0 and len(words) == count:
                self.stats["mbpollReads"] += 1
                return words
            time.sleep(0.2 * (attempt + 1))
        raise HarnessError(f"mbpoll of {machine} {start}+{count} failed: {p.stdout[-400:]} {p.stderr[-400:]}")

    def mark(self) -> dict[str, int]:
        return {n: len(m.reader.poll()) for n, m in self.machines.items()}

    def since(self, mark: dict[str, int]) -> dict[str, list[dict]]:
        return {n: [r for r in m.reader.poll()[mark[n]:] if r["kind"] == "frame" and r["unit"] != INSPECT_UNIT]
                for n, m in self.machines.items()}

    def random_page_values(self, page: dict, rng: random.Random, invalid: bool) -> dict[int, int]:
        words = {}
        regs = [r for r in page["registers"]]
        bad = None
        if invalid:
            candidates = [r for r in regs if writable(r) and ("enum" in r or "max" in r)]
            bad = rng.choice(candidates)["registerId"] if candidates else None
        for r in regs:
            if r["registerId"] == bad:
                w = model.random_words(r, rng, valid=False)
            elif writable(r) and rng.random() < 0.1:
                w = list(codec.unset_patterns(r)[0])
            else:
                w = model.random_words(r, rng)
            for i, x in enumerate(w):
                words[r["address"] + i] = x
        return words

    # ------------------------------------------------------------------ the database (read-only)

    def db(self) -> sqlite3.Connection:
        path = os.path.join(self.daemon.data_dir, "lastset.db")
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)

    # ------------------------------------------------------------------ a round

    def estimate(self, kind: str, page: str, device: str, delay_ms: int) -> float:
        base, requests = self.estimates.get((kind, page, device), DEFAULT_ESTIMATE[kind])
        return base + requests * delay_ms / 1000.0

    def learn(self, job: Job, delay_ms: int):
        """A job that finished before the kill tells how long such a job takes (base + requests x delay)."""
        info = job.acked
        report = info.get("capture") or info.get("replay") or {}
        requests = report.get("requests")
        if not requests or "finishedAt" not in info:
            return
        took = ms_of_iso(info["finishedAt"]) - ms_of_iso(info["startedAt"])
        base = max(0.001, took - requests * delay_ms / 1000.0)
        key = (job.kind, job.page, job.device)
        old = self.estimates.get(key)
        self.estimates[key] = [base, requests] if old is None else [0.7 * old[0] + 0.3 * base, requests]

    def listing(self, page: str) -> list[dict]:
        r = self.api.get(f"/v1/pages/{page}/templates")
        if r.status != 200:
            raise Violation("1", f"GET /v1/pages/{page}/templates answered {r}")
        return r.json()

    def plan_round(self, rng: random.Random) -> Job | None:
        x = rng.random()
        kind = "capture" if x < 0.35 else "replay" if x < 0.83 else "dry" if x < 0.93 else "idle"
        if kind == "idle":
            return None
        page = rng.choice(PAGE_ORDER)
        device = rng.choice(sorted(DEVICES))
        body = {"device": device}
        if kind != "capture":
            listed = [v for v in self.listing(page) if v.get("checksumOK")]
            if not listed:
                kind = "capture"
            else:
                if rng.random() < 0.4:
                    body["version"] = rng.choice(listed)["version"]
                if kind == "dry":
                    body["dryRun"] = True
                else:
                    body["onError"] = rng.choice(["stop", "continue", "rollback"])
        return Job(kind, page, device, body)

    def run_round(self, index: int):
        try:
            self._run_round(index)
        except (OSError, http.client.HTTPException) as e:
            if self.daemon and not self.daemon.alive():
                raise Violation("crash", f"round {index}: lastsetd died by itself ({e!r}): "
                                         f"{self.daemon.log_tail(1500)}")
            raise HarnessError(f"round {index}: {e!r}")

    def _run_round(self, index: int):
        self.round = index
        rng = random.Random(f"lastset-killrounds:{self.seed}:{index}")
        self.stats["rounds"] += 1
        job = self.plan_round(rng)
        delay = rng.choice(DELAYS_MS)
        hold_k = None
        # The machines: values (a capture's source mostly changes, sometimes with an invalid value; a replay's
        # target sometimes), faults (a delay on every reply; sometimes a clamp that makes a read-back differ).
        for name in self.machines:
            clamps = {}
            if job and job.kind == "replay" and name == job.machine and rng.random() < 0.15:
                regs = [r for r in PAGES[job.page]["registers"] if writable(r) and r["type"] == "u16"]
                if regs:
                    clamps[rng.choice(regs)["address"]] = rng.randrange(0, 3)
            self.set_faults(name, delay if job and name == job.machine else 0, clamps)
        if job and job.kind == "capture" and rng.random() < 0.8:
            self.set_words(job.machine, self.random_page_values(PAGES[job.page], rng, invalid=rng.random() < 0.08))
        elif job and job.kind != "capture" and rng.random() < 0.3:
            self.set_words(job.machine, self.random_page_values(PAGES[job.page], rng, invalid=False))
        if job and job.kind == "replay" and rng.random() < 0.3:
            _, requests = self.estimates.get(("replay", job.page, job.device), DEFAULT_ESTIMATE["replay"])
            hold_k = rng.randint(1, max(2, int(requests * 0.6)))
        wait_fraction = rng.uniform(0, 1.3)
        ask_first = rng.random() < 0.5
        self.trace.append(f"round {index}: {job.describe() if job else 'no job'}, delay {delay} ms"
                          f"{f', hold write {hold_k}' if hold_k else ''}")
        if self.args.verbose:
            print(self.trace[-1], flush=True)

        mark = self.mark()
        before_content = {n: dict(c) for n, c in self.content.items()}
        killed_at = None
        finished_first = False
        if job is None:
            self.stats["idle"] += 1
            self.stats["killIdle"] += 1
        else:
            self.stats[{"capture": "captures", "replay": "replays", "dry": "dryRuns"}[job.kind]] += 1
            if hold_k:
                self.machines[job.machine].control(f"hold {hold_k}")
            path = f"/v1/pages/{job.page}/{'capture' if job.kind == 'capture' else 'apply'}"
            resp = self.api.post(path, job.body)
            job.posted_at = time.time()
            if resp.status != 202:
                # Refused at once (no job): nothing to kill it in; still a kill, idle.
                self.stats["notStarted"] += 1
                self.trace.append(f"  not started: {resp}")
                job.acked = {"refusedAtOnce": resp.status, "body": resp.json()}
                if hold_k:
                    self.machines[job.machine].control("release")
                    hold_k = None
            else:
                job.id = resp.json()["id"]
                if hold_k:
                    m = self.machines[job.machine]

                    def held_or_done():
                        if any(r["kind"] == "hold" for r in m.reader.poll()[mark[job.machine]:]):
                            return "held"
                        info = self.api.get(f"/v1/jobs/{job.id}").json()
                        return info if info.get("state") == "finished" else None

                    got = wait_until(held_or_done, f"the replay to reach its write frame {hold_k} or finish")
                    if got != "held":
                        job.acked = got
                        finished_first = True
                else:
                    time.sleep(wait_fraction * self.estimate(job.kind, job.page, job.device, delay))
                    if ask_first:
                        info = self.api.get(f"/v1/jobs/{job.id}").json()
                        if info.get("state") == "finished":
                            job.acked = info
                            finished_first = True
        killed_at = time.time()
        self.daemon.kill()
        if hold_k:
            self.machines[job.machine].control("release")
        if job and job.id:
            if finished_first:
                self.stats["killAfterFinish"] += 1
                self.learn(job, delay)
            elif hold_k:
                self.stats["killHold"] += 1
            else:
                self.stats[{"capture": "killCapture", "replay": "killReplay", "dry": "killDry"}[job.kind]] += 1
        elif job:
            self.stats["killIdle"] += 1
        try:
            self.daemon.start()
        except HarnessError as e:
            raise Violation("start", f"round {self.round}: lastsetd did not start again after the SIGKILL: {e}")
        ready_at = time.time()
        # Every frame a machine received before these reads is in its log now.
        for name in self.machines:
            self.mbpoll(name, 0, 1)
        frames = self.since(mark)
        self.check_round(job, frames, killed_at, ready_at, before_content)

    # ------------------------------------------------------------------ checks

    def check_round(self, job: Job | None, frames: dict[str, list[dict]], killed_at: float, ready_at: float,
                    before_content: dict):
        where = f"round {self.round}"
        for name, records in frames.items():
            self.stats["frames"] += len(records)
            self.stats["writeFrames"] += sum(1 for r in records if is_write(r))
        conn = self.db()
        try:
            new = self.check_audit(conn)
            self.check_archive(conn)
            rows = {r["job"]: r for r in new if r["job"]}
            intent = next((r for r in new if r["result"] == "started"), None)
            outcome = next((r for r in new if r["result"] != "started" and r["kind"] in ("replay", "dry-run")), None)
            writes = {n: [r for r in recs if is_write(r)] for n, recs in frames.items()}

            # (5) every logged write frame belongs to the round's replay, whose intent is committed and older.
            for name, ws in writes.items():
                for r in ws:
                    if not job or job.kind != "replay" or not job.id:
                        raise Violation("5", f"{where}: {name} logged a write frame while no replay ran "
                                             f"({job.describe() if job else 'no job'}): {describe(r)}")
                    if name != job.machine:
                        raise Violation("5", f"{where}: {name} logged a write frame of a replay to {job.machine}: "
                                             f"{describe(r)}")
                    if intent is None:
                        raise Violation("5", f"{where}: {name} logged a write frame and the database has no `started` "
                                             f"record of the replay ({job.describe()}): {describe(r)}")
                    if r["t"] < intent["time"] / 1000.0 - 0.002:
                        raise Violation("5", f"{where}: write frame at {r['t']:.6f} before the intent was recorded "
                                             f"({intent['time']} ms): {describe(r)}")
            # Nothing written by the restarted daemon: a write frame after the kill comes from a connection that
            # carried this job's frames before it (in flight when the process died).
            for name, recs in frames.items():
                peers = {r["peer"] for r in recs if r["t"] < killed_at}
                for r in recs:
                    if is_write(r) and r["t"] >= killed_at and (r["peer"] not in peers or r["t"] > ready_at):
                        raise Violation("5", f"{where}: a write frame after the kill from the restarted daemon (it never "
                                             f"resumes a replay): {name} {describe(r)}")

            if job is not None and job.kind == "capture":
                self.check_capture(job, new, before_content)
            if job is not None and job.kind in ("replay", "dry") and job.id:
                self.check_replay(conn, job, intent, outcome, writes.get(job.machine, []))
            elif intent is not None:
                raise Violation("2", f"{where}: a `started` record ({intent['job']}) and no replay was started")
            # Only a job of the round made records.
            kinds = {(r["kind"], r["result"]) for r in new}
            if job is None and new:
                raise Violation("2", f"{where}: records appeared with no job: {sorted(kinds)}")
            self.check_marks()
        finally:
            conn.close()
        # The harness's picture of the machines follows their logged writes (a clamp stores at most its max).
        for name, ws in writes.items():
            for r in ws:
                if r["exception"] is None:
                    for i, w in enumerate(r["values"]):
                        a = r["address"] + i
                        cl = self.clamps[name].get(a)
                        self.content[name][a] = min(w, cl) if cl is not None else w

    def check_audit(self, conn) -> list[dict]:
        """(2) The audit log only grows; every intent gets exactly one outcome; no journal survives recovery."""
        where = f"round {self.round}"
        n_old = conn.execute("SELECT count(*) FROM audit_record WHERE seq <= ?", (self.audit_seen,)).fetchone()[0]
        if n_old != self.audit_seen:
            raise Violation("2", f"{where}: the audit log held {self.audit_seen} records, {n_old} of them are left")
        journals = conn.execute("SELECT job, device, page_id FROM replay_journal").fetchall()
        if journals:
            raise Violation("2", f"{where}: replay_journal rows survived the restart's recovery: {journals}")
        events = conn.execute("SELECT count(*) FROM replay_event").fetchone()[0]
        if events:
            raise Violation("2", f"{where}: {events} replay_event rows survived the restart's recovery")
        new = []
        for seq, t, kind, result, page, device, job, record in conn.execute(
                "SELECT seq, time, kind, result, page_id, device, job, record FROM audit_record WHERE seq > ? ORDER BY seq",
                (self.audit_seen,)):
            rec = json.loads(record)
            new.append({"seq": seq, "time": t, "kind": kind, "result": result, "page": page, "device": device, "job": job,
                        "record": rec})
        for r in new:
            if r["seq"] != self.audit_seen + 1:
                raise Violation("2", f"{where}: audit seq {r['seq']} follows {self.audit_seen}")
            self.audit_seen = r["seq"]
            self.stats["auditRecords"] += 1
            job = r["job"]
            if r["result"] == "started":
                if job in self.intents or job in self.outcome_of:
                    raise Violation("2", f"{where}: a second `started` record for job {job}")
                self.intents.add(job)
                continue
            if r["kind"] in ("replay", "dry-run") and job:
                if job in self.outcome_of:
                    raise Violation("2", f"{where}: job {job} has two outcomes: {self.outcome_of[job]} and {r['result']}")
                self.outcome_of[job] = r["result"]
                wrote = r["result"] in ("succeeded", "interrupted") or (r["record"].get("writeFrames") or 0) > 0
                if job in self.intents:
                    self.intents.discard(job)
                elif wrote:
                    raise Violation("2", f"{where}: a {r['result']} replay ({job}) that wrote has no `started` record")
            if r["kind"] in ("capture", "import", "promote") and r["result"] == "archived":
                n = r["record"].get("templateVersion")
                if n in self.archived[r["page"]]:
                    raise Violation("1", f"{where}: two `archived` records name {r['page']} version {n}")
                self.archived[r["page"]].add(n)
        if self.intents:
            raise Violation("2", f"{where}: `started` records without an outcome after recovery: {sorted(self.intents)}")
        return new

    def check_archive(self, conn):
        """(1) Versions and their `archived` records: never one without the other; numbers 1..N without gaps."""
        where = f"round {self.round}"
        present: dict[str, set[int]] = {p: set() for p in PAGE_ORDER}
        for page, host, number in conn.execute("SELECT page_id, host, number FROM template_version"):
            if host != "":
                raise Violation("1", f"{where}: a version with host {host!r} without a fleet")
            present.setdefault(page, set()).add(number)
        deleted = {(p, n) for p, n in conn.execute("SELECT page_id, number FROM template_deleted")}
        for page in PAGE_ORDER:
            named = self.archived[page]
            n = max(named, default=0)
            gaps = sorted(set(range(1, n + 1)) - named - {x for p, x in deleted if p == page})
            if gaps:
                raise Violation("1", f"{where}: {page}: archived records name versions up to {n}, none names {gaps}")
            orphans = sorted(present[page] - named)
            if orphans:
                raise Violation("1", f"{where}: {page}: versions {orphans} are in template_version without their "
                                     f"`archived` record")
            keep = set(sorted(named - {x for p, x in deleted if p == page})[-HISTORY:])
            if present[page] != keep:
                raise Violation("1", f"{where}: {page}: template_version holds {sorted(present[page])}, the `archived` "
                                     f"records and history {HISTORY} say {sorted(keep)}")
            listed = self.listing(page)
            bad = [v for v in listed if not v.get("checksumOK")]
            if bad:
                raise Violation("1", f"{where}: {page}: versions listed with a bad checksum: {bad}")
            if {v["version"] for v in listed} != present[page]:
                raise Violation("1", f"{where}: {page}: the API lists {sorted(v['version'] for v in listed)}, the "
                                     f"database holds {sorted(present[page])}")
        self.stats["versions"] = sum(len(v) for v in self.archived.values())

    def check_capture(self, job: Job, new: list[dict], before_content: dict):
        where = f"round {self.round}"
        caps = [r for r in new if r["kind"] == "capture"]
        if len(caps) > 1 or len(new) != len(caps):
            raise Violation("1", f"{where}: a capture left {[(r['kind'], r['result']) for r in new]}")
        info = job.acked
        if not info or "capture" not in info:
            return
        self.stats["ackedCaptures"] += 1
        cap = info["capture"]
        result = "archived" if cap.get("archived") else "unchanged" if cap.get("unchanged") else "invalid/failed"
        if not caps:
            raise Violation("1", f"{where}: the API answered a finished capture ({result}) and the database has no record")
        if cap.get("archived"):
            n = cap["version"]
            if caps[0]["result"] != "archived" or caps[0]["record"].get("templateVersion") != n:
                raise Violation("1", f"{where}: the API acknowledged {job.page} version {n} archived; its record says "
                                     f"{caps[0]['result']} {caps[0]['record'].get('templateVersion')}")
            listed = {v["version"]: v for v in self.listing(job.page)}
            if n not in listed or not listed[n].get("checksumOK"):
                raise Violation("1", f"{where}: {job.page} version {n} was acknowledged as archived and is "
                                     f"{'listed with a bad checksum' if n in listed else 'not listed'} after the restart")
            t = self.api.get(f"/v1/pages/{job.page}/templates/{n}").json()
            got = {e["registerId"]: codec.words_of_hex(e["valueData"]) for e in t["entries"]}
            entries, skipped, problems, identity = model.capture_of(PAGES[job.page], before_content[job.machine])
            want = {e["registerId"]: tuple(e["words"]) for e in entries}
            if problems or got != want:
                raise Violation("1", f"{where}: {job.page} version {n} holds {got}, the machine held {want} "
                                     f"(problems {problems})")
        elif caps[0]["result"] == "archived":
            raise Violation("1", f"{where}: the API answered the capture {result}, its record says archived")

    def check_replay(self, conn, job: Job, intent: dict | None, outcome: dict | None, writes: list[dict]):
        where = f"round {self.round}"
        key = (job.device, job.page)
        info = job.acked
        report = (info or {}).get("replay")
        if job.kind == "dry":
            if intent is not None:
                raise Violation("2", f"{where}: a dry run recorded a `started` intent")
            if report is not None and (outcome is None or outcome["result"] != report["status"]):
                raise Violation("2", f"{where}: the API answered the dry run {report['status']}, the record says "
                                     f"{outcome and outcome['result']}")
            if outcome is not None and outcome["result"] == "planned":
                self.marks[key] = ("clear",)
            elif outcome is not None:
                self.marks[key] = None
            return
        if report is not None:
            self.stats["ackedReplays"] += 1
            if outcome is None or outcome["result"] != report["status"]:
                raise Violation("2", f"{where}: the API answered the replay {report['status']} before the kill; the "
                                     f"database's outcome is {outcome and outcome['result']}")
        if not job.acked:
            self.stats["killedReplay" + ("Nothing" if outcome is None else "Interrupted" if outcome["result"] == "interrupted"
                                         else "Outcome")] += 1
        if outcome is None:
            if intent is not None or writes:
                raise Violation("2", f"{where}: the replay wrote or was recorded as started and has no outcome")
            return  # killed before its intent: nothing recorded, nothing written
        if intent is not None and outcome["job"] != intent["job"]:
            raise Violation("2", f"{where}: the outcome's job {outcome['job']} is not the intent's {intent['job']}")
        result = outcome["result"]
        rec = outcome["record"]
        if result == "interrupted":
            self.stats["interrupted"] += 1
            self.check_interrupted(job, intent, rec, writes)
            self.marks[key] = ("interrupted", outcome["job"])
        elif result == "succeeded":
            self.marks[key] = ("clear",)
            self.check_succeeded(conn, job, outcome, acked=report is not None)
        else:
            self.marks[key] = None if result != "refused" else self.marks[key]

    def check_interrupted(self, job: Job, intent: dict, rec: dict, writes: list[dict]):
        """(3) The interrupted record against the frame log, the truth of what was sent."""
        where = f"round {self.round}"
        page = PAGES[job.page]
        by_id = {r["registerId"]: r for r in rec.get("registers", [])}
        intended = {r["registerId"] for r in intent["record"].get("registers", []) if "written" in r}
        spans = [(r["registerId"], r["address"], codec.length(r)) for r in page["registers"] if r["registerId"] in intended]
        steps = [("beforeWrite", i, s) for i, s in enumerate(page.get("beforeWrite", []))] + \
                [("afterWrite", i, s) for i, s in enumerate(page.get("afterWrite", []))]
        covered: set[str] = set()
        step_sent: set[tuple] = set()
        for f in writes:
            lo, hi = f["address"], f["address"] + f["count"]
            step = next(((k, i) for k, i, s in steps if f["fc"] == 6 and f["address"] == s["address"]
                         and f["values"] == (s["value"] & 0xFFFF,)), None)
            if step:
                step_sent.add(step)
                continue
            touched = [rid for rid, a, n in spans if a < hi and lo < a + n]
            outside = [a for a in range(lo, hi) if not any(s <= a < s + n for _, s, n in spans)]
            if outside:
                raise Violation("5", f"{where}: a write frame to addresses {outside} no register or step of the intent "
                                     f"names: {describe(f)}")
            covered.update(touched)
        for rid in sorted(covered):
            r = by_id.get(rid)
            if r is None or ("written" not in r and r.get("status") != "inDoubt"):
                raise Violation("3", f"{where}: the machine logged a write of {rid}; the interrupted record says "
                                     f"{r and r.get('status')} without `written`: {rec.get('message')}")
        for rid, r in by_id.items():
            if r.get("status") in ANSWERED and rid not in covered:
                raise Violation("3", f"{where}: the interrupted record says {rid} {r['status']} (answered); no write "
                                     f"frame of it was logged")
        for kind, i, s in steps:
            listed = rec.get(kind) or []
            st = listed[i]["status"] if i < len(listed) else None
            if (kind, i) in step_sent and st not in ("ok", "inDoubt"):
                raise Violation("3", f"{where}: {kind}[{i}] {s['address']} := {s['value']} was logged as sent; the "
                                     f"interrupted record says {st}")
            if st == "ok" and (kind, i) not in step_sent:
                raise Violation("3", f"{where}: the interrupted record says {kind}[{i}] answered; no frame was logged")
        answered = rec.get("writeFrames") or 0
        if answered > len(writes):
            raise Violation("3", f"{where}: the interrupted record counts {answered} write frames answered, the machine "
                                 f"logged {len(writes)}")
        self.stats["interruptedChecked"] += 1

    def check_succeeded(self, conn, job: Job, outcome: dict, acked: bool):
        """(4) A succeeded replay: its device state is in the same commit; acknowledged, the machine holds it."""
        where = f"round {self.round}"
        row = conn.execute("SELECT applied_version_id, state FROM device_page_state WHERE device = ? AND page_id = ?",
                           (job.device, job.page)).fetchone()
        vid = outcome["record"].get("templateVersionId") or str(outcome["record"].get("templateVersion"))
        state = json.loads(row[1]) if row else {}
        applied = state.get("applied") or {}
        if row is None or row[0] != vid or applied.get("job") != outcome["job"]:
            raise Violation("4", f"{where}: replay {outcome['job']} of {job.page} version {vid} to {job.device} "
                                 f"succeeded; device_page_state says {row[0] if row else None} (job {applied.get('job')})")
        if state.get("unverified"):
            raise Violation("4", f"{where}: a succeeded replay left the unverified mark {state['unverified']}")
        if not acked:
            return
        t = self.api.get(f"/v1/pages/{job.page}/templates/{vid}").json()
        lo, n = page_span(PAGES[job.page])
        held = self.mbpoll(job.machine, lo, n)
        for e in t["entries"]:
            words = codec.words_of_hex(e["valueData"])
            got = tuple(held.get(e["address"] + i) for i in range(len(words)))
            if got != words:
                raise Violation("4", f"{where}: {job.machine} holds {got} at {e['address']} ({e['registerId']}); the "
                                     f"acknowledged replay of version {vid} wrote {words}")

    def check_marks(self):
        """(3) Unverified marks: set by an interrupted replay, cleared by a later success or a dry run."""
        where = f"round {self.round}"
        devices = {d["id"]: d for d in self.api.get("/v1/devices").json()}
        for (dev, page), want in self.marks.items():
            if want is None:
                continue
            marks = [m for m in devices[dev].get("unverified") or [] if m["pageId"] == page]
            if want[0] == "clear" and marks:
                raise Violation("3", f"{where}: {dev} {page} is marked unverified ({marks[0].get('job')}, "
                                     f"{marks[0].get('reason')}); a replay succeeded or a dry run read it since")
            if want[0] == "interrupted" and not any(m.get("job") == want[1] and m.get("reason") == "interrupted"
                                                    for m in marks):
                raise Violation("3", f"{where}: {dev} {page}: replay {want[1]} was interrupted; GET /v1/devices shows "
                                     f"{marks or 'no unverified mark'}")

    # ------------------------------------------------------------------ figures

    def figures(self, seconds: float, violations: int) -> str:
        s = self.stats
        return (f"kill rounds seed {self.seed}: {s['rounds']} rounds in {seconds:.0f} s; jobs: {s['captures']} captures, "
                f"{s['replays']} replays, {s['dryRuns']} dry runs, {s['idle']} idle rounds ({s['notStarted']} refused at "
                f"once); SIGKILLs: {s['killCapture']} during a capture, {s['killReplay']} during a replay, {s['killDry']} "
                f"during a dry run, {s['killHold']} at a held k-th write frame, {s['killAfterFinish']} just after the job "
                f"finished, {s['killIdle']} idle; replays killed unanswered left {s['killedReplayNothing']} no record (killed "
                f"before the intent), {s['killedReplayInterrupted']} an interrupted record, {s['killedReplayOutcome']} "
                f"their own outcome; {s['interruptedChecked']} interrupted records checked; acknowledged "
                f"before the kill and checked: {s['ackedCaptures']} captures, {s['ackedReplays']} replays; "
                f"{s['frames']} frames ({s['writeFrames']} writes) checked, {s['mbpollReads']} mbpoll reads, "
                f"{s['versions']} versions, {s['auditRecords']} audit records; violations: {violations}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=None, help="directory of the built lastsetd and lastset-sim (swift build --show-bin-path)")
    p.add_argument("--rounds", type=int, default=1000)
    p.add_argument("--seed", type=int, default=None, help="the seed (default: drawn at random and printed)")
    p.add_argument("--python", default=os.path.join(REPO, ".venv/bin/python"))
    p.add_argument("--keep", action="store_true", help="keep the work directory even when every round passed")
    p.add_argument("--verbose", "-v", action="store_true")
    args = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.bin is None:
        args.bin = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, capture_output=True, text=True,
                                  check=True).stdout.strip()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 1_000_000)
    print(f"kill rounds: seed {args.seed}, {args.rounds} rounds (replay: make kill-rounds KILL_SEED={args.seed} "
          f"KILL_ROUNDS={args.rounds})", flush=True)
    runner = Rounds(args)
    started = time.monotonic()
    keep = args.keep
    status = 0
    try:
        runner.start()
        for i in range(args.rounds):
            runner.run_round(i)
            if not args.verbose and i % 100 == 99:
                print(f"  {i + 1} rounds, {time.monotonic() - started:.0f} s", flush=True)
    except Violation as v:
        keep = True
        status = 1
        print("\n" + "=" * 100)
        print(f"KILL-ROUNDS VIOLATION ({v.invariant}) at round {runner.round} of seed {args.seed}:\n  {v.text}")
        print("\nlast rounds:\n  " + "\n  ".join(runner.trace[-6:]))
        print(f"\nreplay:  Tests/chaos/killrounds.py --seed {args.seed} --rounds {runner.round + 1}   "
              f"(make kill-rounds KILL_SEED={args.seed} KILL_ROUNDS={runner.round + 1}; kill instants vary with timing)")
        print(f"work directory kept: {runner.workdir} (lastsetd/data/lastset.db, lastsetd/lastsetd.log, m*.frames)")
        print("=" * 100)
    except (HarnessError, OSError) as e:
        keep = True
        status = 2
        print(f"kill rounds: the harness could not run (seed {args.seed}, round {runner.round}): {e}", file=sys.stderr)
        traceback.print_exc()
        print(f"work directory kept: {runner.workdir}", file=sys.stderr)
    finally:
        runner.stop(keep=keep)
    print(runner.figures(time.monotonic() - started, 1 if status == 1 else 0), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
