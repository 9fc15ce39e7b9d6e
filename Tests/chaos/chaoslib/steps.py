"""The steps of a chaos run. A step is drawn from its own generator, seeded by (seed, index) alone, as a kind
and a list of random integers; what the integers pick (a device, a page, a version, a fault) is decided
when the step runs, from the state of the world then. So the first K steps of a seed are the same in any
run, and a run of a subset of them (while shrinking) is still a valid run."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import time

from . import checks, codec, model
from .frames import describe, is_write
from .procs import HarnessError, wait_until
from .world import Violation, World

KINDS = [
    ("capture", 12), ("perturb", 10), ("apply", 24), ("pinned", 6), ("applyall", 6), ("diff", 4), ("import", 5),
    ("promote", 4), ("delete", 3), ("reload", 8), ("faults", 9), ("kill", 6), ("b_capture", 4), ("b_sync", 3),
    ("a_sync", 3), ("b_reload", 2),
]


class Step:
    def __init__(self, index: int, kind: str, params: list[int]):
        self.index = index
        self.kind = kind
        self.p = params
        self.text = kind  # filled in when it runs: what it did

    def int(self, i: int, n: int) -> int:
        return self.p[i % len(self.p)] % n if n > 0 else 0

    def pick(self, items, i: int):
        items = list(items)
        return items[self.int(i, len(items))] if items else None

    def chance(self, i: int, percent: int) -> bool:
        return self.int(i, 100) < percent


def generate(seed: int, index: int) -> Step:
    rng = random.Random(f"lastset-chaos:{seed}:{index}")
    total = sum(w for _, w in KINDS)
    x = rng.random() * total
    kind = KINDS[-1][0]
    for k, w in KINDS:
        if x < w:
            kind = k
            break
        x -= w
    return Step(index, kind, [rng.getrandbits(31) for _ in range(24)])


class JobRun:
    """One request that may start a job, with the frames every machine logged while it ran."""

    def __init__(self, host: str, method: str, path: str, body):
        self.host = host
        self.method = method
        self.path = path
        self.body = body
        self.resp = None
        self.frames: dict[str, list[dict]] = {}
        self.pre: dict[str, dict[int, int]] = {}
        self.t0 = self.t1 = 0.0

    @property
    def info(self) -> dict:
        return self.resp.json() if self.resp is not None and self.resp.status in (200, 201, 202) else {}

    def writes(self, machine: str) -> list[dict]:
        return [r for r in self.frames.get(machine, []) if is_write(r)]


class Target:
    """Where a replay goes, as the harness resolves it: a configured device, or an ad-hoc machine + unit."""

    def __init__(self, machine: str, unit: int, device: model.DeviceEntry | None, body: dict, label: str):
        self.machine = machine
        self.unit = unit
        self.device = device
        self.body = body
        self.label = label

    @property
    def max_write(self) -> int:
        return self.device.max_write() if self.device else 123

    @property
    def write_function(self) -> str:
        return self.device.write_function() if self.device else "auto"


class Runner:
    """Runs steps against a world and checks the invariants after each."""

    def __init__(self, world: World):
        self.w = world
        self.maybe: dict[str, list[model.Version]] = {p: [] for p in model.PAGE_ORDER}  # archived or not: a kill decided

    # ------------------------------------------------------------ plumbing

    def job(self, host: str, method: str, path: str, body=None, raw: bytes | None = None) -> JobRun:
        w = self.w
        run = JobRun(host, method, path, body)
        run.pre = copy.deepcopy(w.content)
        mark = w.mark()
        run.t0 = time.time()
        run.resp = w.api[host].call(method, path, body=body, raw=raw)
        run.t1 = time.time()
        run.frames = w.since(mark)
        self.account(run)
        return run

    def account(self, run: JobRun):
        """Counts a job's frames and brings the harness's picture of the machines up to date (mbpoll)."""
        w = self.w
        w.settle(run.frames)
        self.claimed = w.mark()
        for name, records in run.frames.items():
            frames = [r for r in records if r["kind"] == "frame"]
            w.stats["frames"] += len(frames)
            w.stats["writeFrames"] += sum(1 for r in frames if is_write(r))
            for r in frames:
                if is_write(r) and r["exception"] is None:
                    w.last_change[name] = max(w.last_change.get(name, 0.0), r["t"])
        if run.info.get("id"):
            w.stats["jobs"] += 1

    def no_writes(self, run: JobRun, why: str, except_machine: str | None = None):
        for name, records in run.frames.items():
            if name == except_machine:
                continue
            for r in records:
                if is_write(r):
                    raise Violation("a", f"{why}: {name} received a write — {describe(r)}")

    def expect_status(self, run: JobRun, statuses, what: str):
        if run.resp.status not in statuses:
            raise Violation("c", f"{what}: expected HTTP {statuses}, got {run.resp}")

    # ------------------------------------------------------------ the step loop

    def run_step(self, step: Step):
        w = self.w
        w.stats["steps"] += 1
        handler = getattr(self, "step_" + step.kind)
        self.claimed = w.mark()
        handler(step)
        # Nothing writes but a job: a write frame no job of the step claimed is a violation.
        for name, records in w.since(self.claimed).items():
            for r in records:
                if is_write(r):
                    raise Violation("a", f"{name} received a write while no job ran — {describe(r)}")
        checks.check_state(self, step)
        checks.check_archive(self, full=False)

    # ------------------------------------------------------------ versions

    def latest(self, page: str, pending: bool = False, host: str = "A") -> model.Version | None:
        pool = list(self.w.versions[page].values()) if host == "A" else list(self.w.b_versions[page].values())
        if pending and host == "A":
            pool += list(self.w.hub_pending[page].values())
        pool = [v for v in pool if not v.deleted]
        return max(pool, key=lambda v: v.order, default=None)

    def live_versions(self, page: str) -> list[model.Version]:
        return sorted((v for v in self.w.versions[page].values() if not v.deleted), key=lambda v: v.order)

    def version_ref(self, page: str, ref: str) -> model.Version | None:
        """The version a request's `version` names on host A (a plain number is this host's own)."""
        vid = f"line-a-{ref}" if ref.isdigit() else ref
        return self.w.versions[page].get(vid) or self.w.hub_pending[page].get(vid)

    def adopt(self, page: str, vid: str, origin: str, expected: model.Version | None, order: float) -> model.Version:
        """Records a version host A acknowledged as archived, after checking what it holds."""
        got = self.w.api["A"].get(f"/v1/pages/{page}/templates/{vid}")
        if got.status != 200:
            raise Violation("e", f"{page} {vid} was acknowledged as archived but cannot be read: {got}")
        v = checks.version_from_api(got.json(), origin, order)
        if expected is not None:
            checks.same_content(expected, v, f"{page} {vid} ({origin})")
            v.page_def = expected.page_def
        self.w.versions[page][vid] = v
        return v

    # ------------------------------------------------------------ steps: capture, perturb

    def step_capture(self, s: Step, host: str = "A"):
        w = self.w
        cfg = w.cfg[host]
        d = s.pick(cfg.devices, 0)
        page = s.pick(d.pages, 1)
        s.text = f"{host}: capture {page} from {d.id} ({d.machine})"
        w.log(s.text)
        run = self.job(host, "POST", f"/v1/pages/{page}/capture?wait=1", {"device": d.id})
        self.no_writes(run, "a capture")
        w.stats["captures"] += 1
        checks.check_capture(self, run, host, d, page)

    def step_b_capture(self, s: Step):
        self.step_capture(s, host="B")

    def step_perturb(self, s: Step):
        """Changes a machine's values from its own panel: new reference values to capture, or drift."""
        w = self.w
        machine = "m1" if s.chance(0, 60) else s.pick(["m2", "m3", "m4"], 1)
        page = w.cfg["A"].pages()[s.pick(model.PAGE_ORDER, 2)]
        rng = random.Random(s.p[3])
        changed = []
        for r in page["registers"]:
            if r.get("access") == "ro" or rng.random() < 0.45:
                continue
            x = rng.random()
            if x < 0.05 and machine != "m1" or x < 0.02:
                words = model.random_words(r, rng, valid=False)
            elif x < 0.10:
                words = list(codec.unset_patterns(r)[0])
            else:
                words = model.random_words(r, rng)
            w.set_words(machine, r["address"], words)
            changed.append(r["registerId"])
        w.last_change[machine] = time.time()
        s.text = f"perturb {machine} {page['id']}: {len(changed)} registers"
        w.log(s.text)

    # ------------------------------------------------------------ steps: replays

    def resolve_target(self, s: Step, page: str, i: int) -> Target | None:
        w = self.w
        cfg = w.cfg["A"]
        form = s.int(i, 10)
        devices = [d for d in cfg.devices if page in d.pages]
        if form < 7 and devices:
            d = s.pick(devices, i + 1)
            return Target(d.machine, d.unit, d, {"device": d.id}, d.id)
        machine = s.pick(sorted(w.machines), i + 1)
        host = "localhost" if form == 9 else "127.0.0.1"
        configured = [d for d in cfg.devices if d.machine == machine]
        unit = configured[0].unit if configured and s.chance(i + 2, 80) else 1 + s.int(i + 3, 3)
        dev = cfg.by_machine(machine, unit)
        if dev is not None and page not in dev.pages:
            dev_pages_ok = False
        else:
            dev_pages_ok = True
        if not dev_pages_ok:
            return None  # a configured device without the page: its own refusal, not this step's subject
        body = {"endpoint": f"tcp://{host}:{w.machines[machine].port}", "unit": unit}
        return Target(machine, unit, dev, body, dev.id if dev else f"{machine} unit {unit} (ad hoc)")

    def step_apply(self, s: Step, dry: bool | None = None):
        w = self.w
        page = s.pick(model.PAGE_ORDER, 0)
        target = self.resolve_target(s, page, 1)
        if target is None:
            s.text = f"apply {page}: no target"
            return
        body = dict(target.body)
        version = None
        live = self.live_versions(page)
        if s.chance(5, 30) and w.versions[page]:
            v = s.pick(sorted(w.versions[page].values(), key=lambda v: v.order), 6)
            version = v.id if s.chance(7, 60) or v.host != "line-a" else v.id.rsplit("-", 1)[1]
            body["version"] = version
        on_error = s.pick(["stop", "stop", "rollback", "rollback", "continue"], 8)
        if on_error != "stop" or s.chance(9, 30):
            body["onError"] = on_error
        dry = s.chance(10, 20) if dry is None else dry
        if dry:
            body["dryRun"] = True
        s.text = f"apply {page} to {target.label} ({target.machine}) version {version or 'latest'} onError {on_error}" + \
            (" dry run" if dry else "")
        w.log(s.text)
        run = self.job("A", "POST", f"/v1/pages/{page}/apply?wait=1", body)
        checks.check_replay(self, run, target, page, version, on_error, dry)

    def step_diff(self, s: Step):
        w = self.w
        page = s.pick(model.PAGE_ORDER, 0)
        devices = [d for d in w.cfg["A"].devices if page in d.pages]
        d = s.pick(devices, 1)
        if d is None:
            return
        target = Target(d.machine, d.unit, d, {"device": d.id}, d.id)
        s.text = f"diff {page} on {d.id} ({d.machine})"
        w.log(s.text)
        run = self.job("A", "GET", f"/v1/pages/{page}/diff?device={d.id}")
        checks.check_replay(self, run, target, page, None, "stop", True, diff=True)

    def step_pinned(self, s: Step):
        """A dry run, maybe a change of the latest version, then the write carrying the version confirmed."""
        w = self.w
        page = s.pick(model.PAGE_ORDER, 0)
        devices = [d for d in w.cfg["A"].devices if page in d.pages]
        d = s.pick(devices, 1)
        if d is None or not self.live_versions(page):
            s.text = f"pinned {page}: nothing to pin"
            return
        target = Target(d.machine, d.unit, d, {"device": d.id}, d.id)
        w.log(f"pinned apply {page} to {d.id}: dry run first")
        dry = self.job("A", "POST", f"/v1/pages/{page}/apply?wait=1", {"device": d.id, "dryRun": True})
        checks.check_replay(self, dry, target, page, None, "stop", True)
        confirmed = (dry.info.get("replay") or {}).get("templateVersionId")
        if not confirmed:
            s.text = f"pinned {page} to {d.id}: the dry run named no version"
            return
        between = s.int(2, 4)
        if between == 1:
            self.step_promote(Step(s.index, "promote", s.p[3:] + s.p[:3]), page=page)
        elif between == 2:
            self.step_import(Step(s.index, "import", s.p[5:] + s.p[:5]), page=page, mode="same")
        elif between == 3:
            self.step_capture(Step(s.index, "capture", [s.p[6], model.PAGE_ORDER.index(page)] + s.p[8:]))
        on_error = s.pick(["stop", "rollback", "continue"], 9)
        body = {"device": d.id, "expectVersion": confirmed, "onError": on_error}
        s.text = f"pinned apply {page} to {d.id} expecting {confirmed} ({['nothing', 'a promote', 'an import', 'a capture'][between]} in between)"
        w.log(s.text)
        run = self.job("A", "POST", f"/v1/pages/{page}/apply?wait=1", body)
        latest = self.latest(page, pending=True)
        if latest is not None and latest.id != confirmed and self.latest(page).id != confirmed:
            if run.resp.status != 409 or run.resp.code != "version_changed":
                raise Violation("c", f"{page}: {confirmed} was confirmed, the latest is now {latest.id}, "
                                     f"yet the apply answered {run.resp}")
            self.no_writes(run, f"a pinned apply refused with version_changed")
            return
        checks.check_replay(self, run, target, page, None, on_error, False, pinned=confirmed)

    def step_applyall(self, s: Step):
        w = self.w
        d = s.pick(w.cfg["A"].devices, 0)
        dry = s.chance(1, 30)
        on_error = s.pick(["stop", "rollback", "continue"], 2)
        policy = s.pick(["stop", "continue"], 3)
        body = {"onError": on_error, "onPageFailure": policy}
        if dry:
            body["dryRun"] = True
        pins = {}
        if s.chance(4, 40):
            for p in d.pages:
                v = self.latest(p)
                if v is not None:
                    pins[p] = v.id
            if pins:
                body["expectVersions"] = pins
        s.text = f"apply every page of {d.id} ({d.machine}) onError {on_error} onPageFailure {policy}" + \
            (" dry run" if dry else "") + (f" pinned {pins}" if pins else "")
        w.log(s.text)
        run = self.job("A", "POST", f"/v1/devices/{d.id}/apply?wait=1", body)
        w.stats["applyAll"] += 1
        checks.check_applyall(self, run, d, on_error, policy, dry)

    # ------------------------------------------------------------ steps: the archive

    def step_import(self, s: Step, page: str | None = None, mode: str | None = None):
        w = self.w
        page = page or s.pick(model.PAGE_ORDER, 0)
        live = self.live_versions(page)
        if not live:
            s.text = f"import {page}: no version to export"
            return
        v = s.pick(live, 1)
        mode = mode or s.pick(["same", "same", "modified", "modified", "inconsistent", "wrongpage", "corrupt"], 2)
        got = w.api["A"].get(f"/v1/pages/{page}/templates/{v.id}/file")
        if got.status != 200:
            raise Violation("e", f"{page} {v.id} cannot be exported: {got}")
        text = got.body.decode()
        expected = copy.deepcopy(v)
        dest = page
        if mode in ("modified", "inconsistent"):
            text, changed = checks.edit_template_file(text, v, page_def=w.cfg["A"].pages()[page], seed=s.p[3],
                                                       consistent=mode == "modified")
            if changed is None:
                mode = "same"
            else:
                rid, words = changed
                for e in expected.entries:
                    if e["registerId"] == rid:
                        e["words"] = words
        elif mode == "wrongpage":
            dest = s.pick([p for p in model.PAGE_ORDER if p != page], 4)
        elif mode == "corrupt":
            i = text.index('"valueData":"') + 13
            text = text[:i] + ("0" if text[i] != "0" else "1") + text[i + 1:]
        s.text = f"import {page} {v.id} ({mode}) into {dest}"
        w.log(s.text)
        run = self.job("A", "POST", f"/v1/pages/{dest}/templates", raw=text.encode())
        self.no_writes(run, "an import")
        w.stats["imports"] += 1
        admitted, left_out, refused = model.admission(expected, w.cfg["A"].pages()[page])
        if mode in ("inconsistent", "wrongpage", "corrupt") or refused:
            code = {"wrongpage": "page_mismatch"}.get(mode, "invalid_template")
            if run.resp.status != 422 or run.resp.code != code:
                raise Violation("c", f"import of a {mode} file ({'; '.join(refused) or 'refused entries: none'}) "
                                     f"answered {run.resp}, expected 422 {code}")
            return
        if run.resp.status != 201:
            raise Violation("c", f"import of {page} {v.id} ({mode}) answered {run.resp}")
        vid = run.resp.json()["versionId"] if "versionId" in run.resp.json() else checks.version_id(run.resp.json())
        if vid in w.versions[page]:
            raise Violation("e", f"import of {page} archived as {vid}, an id already given")
        expected.origin = "import"
        self.adopt(page, vid, "import", expected, time.time())

    def step_promote(self, s: Step, page: str | None = None):
        w = self.w
        page = page or s.pick(model.PAGE_ORDER, 0)
        live = self.live_versions(page)
        if not live:
            s.text = f"promote {page}: no version"
            return
        v = s.pick(live, 1)
        latest = self.latest(page)
        s.text = f"promote {page} {v.id}" + (" (the latest)" if v is latest else "")
        w.log(s.text)
        run = self.job("A", "POST", f"/v1/pages/{page}/templates/{v.id}/promote", {})
        self.no_writes(run, "a promote")
        w.stats["promotes"] += 1
        if v is latest:
            if run.resp.status != 409 or run.resp.code != "already_latest":
                raise Violation("c", f"promote of the latest {page} {v.id} answered {run.resp}")
            return
        here = w.cfg["A"]
        if v.host != here.host and model.page_key(v.page_def) != model.page_key(here.pages()[page]):
            # Its copy would be A's own version, written under a definition it was not captured against.
            if run.resp.status != 422 or run.resp.code != "invalid_template":
                raise Violation("c", f"promote of {page} {v.id} (B's, another definition) answered {run.resp}")
            return
        if run.resp.status != 201:
            raise Violation("c", f"promote of {page} {v.id} answered {run.resp}")
        vid = checks.version_id(run.resp.json())
        expected = copy.deepcopy(v)
        expected.origin = "promote"
        self.adopt(page, vid, "promote", expected, time.time())

    def step_delete(self, s: Step):
        w = self.w
        page = s.pick(model.PAGE_ORDER, 0)
        live = self.live_versions(page)
        if not live:
            s.text = f"delete {page}: no version"
            return
        v = s.pick(live, 1)
        force = s.chance(2, 40)
        held = checks.holders(self, page, v.id)
        s.text = f"delete {page} {v.id}" + (" force" if force else "") + (f" (held by {held})" if held else "")
        w.log(s.text)
        run = self.job("A", "DELETE", f"/v1/pages/{page}/templates/{v.id}" + ("?force=1" if force else ""))
        self.no_writes(run, "a delete")
        w.stats["deletes"] += 1
        if held and not force:
            if run.resp.status != 409 or run.resp.code != "version_in_use":
                raise Violation("c", f"delete of {page} {v.id} held by {held} without force answered {run.resp}")
            return
        if run.resp.status != 200:
            raise Violation("c", f"delete of {page} {v.id} answered {run.resp}")
        v.deleted = True

    # ------------------------------------------------------------ steps: config, faults, fleet

    def step_reload(self, s: Step, host: str = "A"):
        w = self.w
        old = w.cfg[host]
        new = old.copy()
        what = s.int(0, 7)
        movable = [d for d in new.devices if d.id != "press-a"] if host == "A" else []
        text = ""
        if what == 0 and movable:
            d = s.pick(movable, 1)
            used = {x.machine for x in new.devices}
            free = [m for m in sorted(w.machines) if m not in used]
            if free and s.chance(2, 60):
                text = f"move {d.id} {d.machine} -> {free[0]}"
                d.machine = free[0]
            else:
                other = s.pick([x for x in new.devices if x is not d], 3)
                text = f"swap machines of {d.id} ({d.machine}) and {other.id} ({other.machine})"
                d.machine, other.machine = other.machine, d.machine
        elif what == 1 and movable:
            d = s.pick(movable, 1)
            base = d.id.split("~")[0]
            new_id = base if "~" in d.id else base + "~2"
            new_id = new_id.replace("~", "-v")
            if d.id.endswith("-v2"):
                new_id = d.id[:-3]
            text = f"rename {d.id} -> {new_id}"
            d.id = new_id
        elif what in (2, 3):
            key = s.pick(sorted(model.VARIANT_CHOICES), 1)
            choices = model.VARIANT_CHOICES[key]
            new.variant[key] = choices[(choices.index(new.variant[key]) + 1) % len(choices)]
            text = f"re-type: {key} {old.variant[key]} -> {new.variant[key]}"
        elif what == 4:
            d = s.pick(new.devices, 1)
            q = {}
            if s.chance(2, 50):
                q["maxReadRegisters"] = s.pick([125, 12, 5, 3], 3)
            if s.chance(4, 50):
                q["maxWriteRegisters"] = s.pick([123, 8, 3, 2, 1], 5)
            if s.chance(6, 25):
                q["writeFunction"] = s.pick(["auto", "fc06", "fc16"], 7)
            if s.chance(8, 30):
                q["maxGap"] = s.pick([0, 8], 9)
            d.quirks = q
            text = f"quirks of {d.id}: {q}"
        elif what == 5 and host == "A":
            d = s.pick(new.devices, 1)
            p = s.pick(["table", "motion"], 2)
            if p in d.pages and len(d.pages) > 1:
                d.pages = [x for x in d.pages if x != p]
                text = f"{d.id} loses page {p}"
            else:
                d.pages = [x for x in model.PAGE_ORDER if x in d.pages or x == p]
                text = f"{d.id} gains page {p}"
        elif what == 6 and movable:
            d = s.pick(movable, 1)
            if not any(x.machine == d.machine and x.unit == 3 - d.unit for x in new.devices):
                text = f"{d.id} unit {d.unit} -> {3 - d.unit}"
                d.unit = 3 - d.unit
        if not text:
            s.text = f"{host}: reload (no change)"
            text = "no change"
        s.text = f"{host}: reload: {text}"
        w.log(s.text)
        w.daemons[host].write_config(new.json(w.ports()))
        run = self.job(host, "POST", "/v1/reload")
        self.no_writes(run, "a reload")
        if run.resp.status != 200:
            raise Violation("c", f"reload of a valid config ({text}) answered {run.resp}")
        w.cfg[host] = new
        w.stats["reloads"] += 1
        if host == "A":
            w.reloaded_at = run.t1
        if host == "A":
            checks.after_reload(self, old, new)

    def step_b_reload(self, s: Step):
        self.step_reload(Step(s.index, "reload", [2] + s.p[1:]), host="B")

    def step_faults(self, s: Step):
        w = self.w
        machine = s.pick(["m2", "m2", "m3", "m3", "m4", "m1"], 0)
        page = w.cfg["A"].pages()[s.pick(model.PAGE_ORDER, 1)]
        u16 = [r for r in page["registers"] if r["type"] in ("u16",) and r.get("clone") is not False
               and r.get("access") != "ro"]
        writable = [r for r in page["registers"] if r.get("clone") is not False and r.get("access") != "ro"]
        faults = {}
        kinds = [s.int(2, 9)] + ([s.int(3, 9)] if s.chance(4, 30) else [])
        for k in kinds:
            if k == 3:
                faults["refuse_fc16"] = True
            elif k == 4 and u16:
                r = s.pick(u16, 5)
                faults.setdefault("clamps", {})[r["address"]] = s.pick([0, 1, 2, 100, 1000], 6)
            elif k == 5 and writable:
                r = s.pick(writable, 7)
                codes = [2, 3, 4]
                a = r["address"] + s.int(8, codec.length(r))
                faults.setdefault("exceptions", {})[a] = s.pick(codes, 9)
            elif k == 6:
                faults["max_read"] = s.pick([4, 8, 16, 40], 10)
            elif k == 7:
                faults["delay"] = s.pick([1, 3, 10], 11)
        w.set_faults(machine, faults)
        w.stats["faultChanges"] += 1
        s.text = f"faults on {machine}: {faults or 'none'}"
        w.log(s.text)

    def step_a_sync(self, s: Step):
        self.sync("A")

    def step_b_sync(self, s: Step):
        self.sync("B")

    def sync(self, host: str):
        w = self.w
        w.log(f"{host}: sync")
        run = self.job(host, "POST", "/v1/sync")
        self.no_writes(run, "a fleet sync")
        w.stats["syncs"] += 1
        if run.resp.status != 200:
            raise Violation("c", f"{host}: sync answered {run.resp}")
        report = run.resp.json()
        if report.get("result") != "ok":
            raise Violation("c", f"{host}: sync with the hub up ended {report.get('result')}: {report.get('message')} "
                                 f"{report.get('refused')}")
        checks.after_sync(self, host, report)

    # ------------------------------------------------------------ steps: SIGKILL

    def step_kill(self, s: Step):
        w = self.w
        mode = s.pick(["idle", "replay", "replay", "replay", "after-capture"], 0)
        if mode == "replay":
            self.kill_during_replay(s)
        elif mode == "after-capture":
            self.step_capture(Step(s.index, "capture", s.p[1:] + s.p[:1]))
            s.text = "SIGKILL right after a capture was acknowledged"
            self.restart(s)
        else:
            s.text = "SIGKILL while idle"
            self.restart(s)

    def restart(self, s: Step):
        w = self.w
        w.log(f"SIGKILL lastsetd A ({s.text})")
        mark = w.mark()
        w.daemons["A"].kill()
        w.stats["kills"] += 1
        w.daemons["A"].start()
        w.wait_first_sync("A")
        frames = w.since(mark)
        self.claimed = w.mark()
        for name, records in frames.items():
            for r in records:
                if is_write(r):
                    raise Violation("a", f"a write while lastsetd restarted (it never resumes a replay) — {name} {describe(r)}")
        checks.after_restart(self)

    def kill_during_replay(self, s: Step):
        w = self.w
        page = s.pick(model.PAGE_ORDER, 1)
        devices = [d for d in w.cfg["A"].devices if page in d.pages]
        d = s.pick(devices, 2)
        if d is None or not self.live_versions(page):
            s.text = "SIGKILL while idle (nothing to replay)"
            self.restart(s)
            return
        k = 1 + s.int(3, 5)
        on_error = s.pick(["stop", "rollback", "continue"], 4)
        m = w.machines[d.machine]
        m.control(f"hold {k}")
        target = Target(d.machine, d.unit, d, {"device": d.id}, d.id)
        s.text = f"SIGKILL during apply {page} to {d.id} ({d.machine}) at its write frame {k}, onError {on_error}"
        w.log(s.text)
        run = JobRun("A", "POST", f"/v1/pages/{page}/apply", {"device": d.id, "onError": on_error})
        run.pre = copy.deepcopy(w.content)
        mark = w.mark()
        run.t0 = time.time()
        run.resp = w.api["A"].post(run.path, run.body)
        if run.resp.status != 202:
            m.control("release")
            run.frames = w.since(mark)
            self.account(run)
            checks.check_replay(self, run, target, page, None, on_error, False)
            return
        job = run.resp.json()["id"]

        def held_or_done():
            if any(r["kind"] == "hold" for r in m.reader.poll()[mark[d.machine]:]):
                return "held"
            info = w.api["A"].get(f"/v1/jobs/{job}").json()
            return "done" if info.get("state") == "finished" else None

        outcome = wait_until(held_or_done, f"the replay to reach write {k} or finish")
        if outcome == "done":
            m.control("release")
            run.resp = w.api["A"].get(f"/v1/jobs/{job}")
            run.t1 = time.time()
            run.frames = w.since(mark)
            self.account(run)
            checks.check_replay(self, run, target, page, None, on_error, False)
            s.text += " (finished first: killed idle)"
            self.restart(s)
            return
        w.daemons["A"].kill()
        w.stats["kills"] += 1
        m.control("release")
        # The held frame is answered to nobody; a read by the harness comes after it on the machine.
        w.mbpoll(d.machine)
        run.t1 = time.time()
        run.frames = w.since(mark)
        self.account(run)
        w.stats["jobs"] += 1
        expect = checks.replay_expectation(self, target, page, None, on_error, pending_ok=True)
        version = checks.interrupted_version(self, run, expect)
        checks.check_killed_replay(self, run, target, page, on_error, version)
        mark = w.mark()
        w.daemons["A"].start()
        w.wait_first_sync("A")
        for name, records in w.since(mark).items():
            for r in records:
                if is_write(r):
                    raise Violation("a", f"a write while lastsetd restarted after a killed replay (it never resumes "
                                         f"one) — {name} {describe(r)}")
        self.claimed = w.mark()
        checks.after_restart(self, interrupted=(job, d.id, page, run, version))
