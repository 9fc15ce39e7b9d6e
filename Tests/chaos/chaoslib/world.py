"""The world of a chaos run: four simulated machines, two lastsetd hosts in a fleet around a git hub, and
everything the harness knows about them, learnt from the machines themselves (frame logs, mbpoll) and
from what the daemons acknowledged."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time

from . import codec, model
from .api import API
from .frames import is_write
from .procs import INSPECT_UNIT, Daemon, HarnessError, Hub, Machine, wait_until

MACHINES = [("m1", "sim"), ("m2", "sim"), ("m3", "py"), ("m4", "sim")]


class Violation(Exception):
    """An invariant does not hold: the run stops here and is shrunk."""

    def __init__(self, invariant: str, text: str):
        super().__init__(f"({invariant}) {text}")
        self.invariant = invariant
        self.text = text


class World:
    def __init__(self, bin_dir: str, repo: str, python: str, workdir: str | None = None, verbose: bool = False):
        self.bin_dir = bin_dir
        self.repo = repo
        self.python = python
        self.own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="lastset-chaos-")
        os.makedirs(self.workdir, exist_ok=True)
        self.verbose = verbose
        self.machines: dict[str, Machine] = {}
        self.content: dict[str, dict[int, int]] = {}
        self.faults: dict[str, dict] = {}
        self.daemons: dict[str, Daemon] = {}
        self.api: dict[str, API] = {}
        self.cfg: dict[str, model.HostConfig] = {}
        self.hub: Hub | None = None
        # Versions known to be archived on host A (by page and id), and those a sync of B put on the hub.
        self.versions: dict[str, dict[str, model.Version]] = {p: {} for p in model.PAGE_ORDER}
        self.hub_pending: dict[str, dict[str, model.Version]] = {p: {} for p in model.PAGE_ORDER}
        self.b_versions: dict[str, dict[str, model.Version]] = {p: {} for p in model.PAGE_ORDER}
        # What each (device id, page) of host A holds, as the machines showed it:
        #   ("none",) nothing applied | ("applied", version id, machine, {registerId: words}) every entry verified
        #   | ("partial", machine, prior) a failed replay changed registers, no rollback restored them
        #   | ("unverified", machine) killed while writing | ("cleared", machine) a dry run read every entry since
        #   | ("unknown",) a reload moved the device: what its new machine holds was never shown
        self.truth: dict[tuple[str, str], tuple] = {}
        # Jobs whose outcome a daemon acknowledged, to be found in its audit log for good: (job id, result).
        self.acknowledged_jobs: list[tuple[str, str]] = []
        self.stats = {"steps": 0, "jobs": 0, "frames": 0, "writeFrames": 0, "kills": 0, "reloads": 0, "syncs": 0,
                      "captures": 0, "replays": 0, "dryRuns": 0, "applyAll": 0, "imports": 0, "promotes": 0,
                      "deletes": 0, "faultChanges": 0, "mbpollReads": 0}
        self.trace: list[str] = []
        self.last_change: dict[str, float] = {}  # machine -> wall time of its last change (a write, a panel set)
        self.checked_jobs = 0  # acknowledged_jobs[:checked_jobs] were found in the audit log after a restart
        self.a_pushed: set[str] = set()  # host A's versions on the hub
        self.last_applied: dict[tuple[str, str], str] = {}  # (device id, page) -> version of its last success
        self.reloaded_at = 0.0  # wall time host A answered its last reload (or restart): its config in force since

    # ---------------------------------------------------------------- setup

    def start(self):
        self.hub = Hub(self.workdir)
        for name, kind in MACHINES:
            self.machines[name] = Machine(name, kind, self.workdir, self.bin_dir, self.python, self.repo)
            self.faults[name] = {}
            self.content[name] = {a: 0 for a in model.tracked_addresses()}
        for name in self.machines:
            self.set_words(name, 0, codec.encode(model.MODELS[name], IDENTITY_REG))
            # Every register of every page variant starts at its "not set" default, as on a blank EEPROM.
            for variant in (model.DEFAULT_VARIANT, {k: v[-1] for k, v in model.VARIANT_CHOICES.items()}):
                for page in model.pages(variant).values():
                    for r in page["registers"]:
                        self.set_words(name, r["address"], list(codec.unset_patterns(r)[0]))
        self.cfg["A"] = model.HostConfig("line-a", [
            model.DeviceEntry("press-a", "m1", 1, list(model.PAGE_ORDER)),
            model.DeviceEntry("press-b", "m2", 1, list(model.PAGE_ORDER), quirks={"maxReadRegisters": 10}),
            model.DeviceEntry("press-c", "m3", 1, list(model.PAGE_ORDER), poll="500ms"),
        ], model.DEFAULT_VARIANT, self.hub.url)
        self.cfg["B"] = model.HostConfig("line-b", [
            model.DeviceEntry("ref", "m1", 1, list(model.PAGE_ORDER)),
        ], model.DEFAULT_VARIANT, self.hub.url)
        for host in ("A", "B"):
            d = Daemon(host, self.workdir, self.bin_dir)
            d.write_config(self.cfg[host].json(self.ports()))
            self.daemons[host] = d
            self.api[host] = API(d.socket_path)
            d.start()
            self.wait_first_sync(host)
        for d in self.cfg["A"].devices:
            for p in d.pages:
                self.truth[(d.id, p)] = ("none",)

    def wait_first_sync(self, host: str):
        def synced():
            h = self.api[host].get("/v1/health").json()
            return h.get("fleet", {}).get("lastSync") is not None

        wait_until(synced, f"{host}'s first fleet sync")

    def ports(self) -> dict[str, int]:
        return {n: m.port for n, m in self.machines.items()}

    def stop(self, keep: bool):
        for d in self.daemons.values():
            d.stop()
        for m in self.machines.values():
            m.stop()
        if self.hub:
            self.hub.stop()
        if not keep and self.own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    # ---------------------------------------------------------------- machines

    def set_words(self, machine: str, address: int, words: list[int]):
        """Changes a machine's registers as its own panel would (no Modbus frame)."""
        self.machines[machine].control(f"set {address} {','.join(str(w) for w in words)}")
        for i, w in enumerate(words):
            self.content[machine][address + i] = w

    def set_faults(self, machine: str, faults: dict):
        flags = []
        if faults.get("refuse_fc16"):
            flags.append("--refuse-fc16")
        for a, c in sorted(faults.get("exceptions", {}).items()):
            flags += ["--exception", f"{a}:{c}"]
        for a, m in sorted(faults.get("clamps", {}).items()):
            flags += ["--clamp", f"{a}:{m}"]
        if faults.get("max_read"):
            flags += ["--max-read", str(faults["max_read"])]
        if faults.get("delay"):
            flags += ["--delay-ms", str(faults["delay"])]
        self.machines[machine].control("faults" + "".join(" " + f for f in flags))
        self.faults[machine] = faults

    def mark(self) -> dict[str, int]:
        return {n: len(m.reader.poll()) for n, m in self.machines.items()}

    def since(self, mark: dict[str, int]) -> dict[str, list[dict]]:
        """What each machine logged since `mark`, without the harness's own inspection reads."""
        return {n: [r for r in m.reader.poll()[mark[n]:] if r.get("unit") != INSPECT_UNIT]
                for n, m in self.machines.items()}

    def mbpoll(self, machine: str) -> dict[int, int]:
        """What the machine holds, read with mbpoll (an independent client), retried on a timeout."""
        port = self.machines[machine].port
        out = {}
        for start, n in model.tracked_ranges():
            for attempt in range(5):
                p = subprocess.run(["mbpoll", "-m", "tcp", "-a", str(INSPECT_UNIT), "-r", str(start + 1), "-c", str(n), "-o", "10", "-1",
                                    "127.0.0.1", "-p", str(port)], capture_output=True, text=True, timeout=120)
                words = {}
                for line in p.stdout.splitlines():
                    if line.startswith("["):
                        ref, _, rest = line.partition(":")
                        v = int(rest.split()[0])
                        words[int(ref[1:-1]) - 1] = v & 0xFFFF
                if p.returncode == 0 and len(words) == n:
                    out.update(words)
                    break
                time.sleep(0.2 * (attempt + 1))
            else:
                raise HarnessError(f"mbpoll of {machine} {start}+{n} failed: {p.stdout[-500:]} {p.stderr[-500:]}")
        self.stats["mbpollReads"] += 1
        return out

    def simulate(self, machine: str, records: list[dict]):
        """Applies the write frames a machine logged to the harness's picture of it (clamps as in force)."""
        clamps = self.faults[machine].get("clamps", {})
        c = self.content[machine]
        for r in records:
            if is_write(r) and r["exception"] is None:
                for i, w in enumerate(r["values"]):
                    a = r["address"] + i
                    if a in clamps and w > clamps[a]:
                        w = clamps[a]
                    if a in c:
                        c[a] = w

    def settle(self, frames: dict[str, list[dict]]) -> dict[str, dict[int, int]]:
        """After a step: the machines that received writes are read with mbpoll; what they hold must be what
        their frame logs say they were sent (else a frame went unlogged: the harness cannot judge)."""
        for name, records in frames.items():
            if not any(is_write(r) for r in records):
                continue
            self.simulate(name, records)
            held = self.mbpoll(name)
            differs = [a for a in held if held[a] != self.content[name].get(a)]
            if differs:
                a = differs[0]
                raise HarnessError(f"{name} holds {held[a]} at {a}, its frame log says {self.content[name].get(a)}: "
                                   f"{len(differs)} addresses differ (a write the log did not show)")
        return self.content

    def identity(self, machine: str) -> tuple:
        return tuple(self.content[machine][a] for a in range(4))

    def log(self, text: str):
        self.trace.append(text)
        if self.verbose:
            print("   " + text, flush=True)


IDENTITY_REG = model.IDENTITY[0]
