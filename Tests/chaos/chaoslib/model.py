"""What the harness knows of the world, in its own terms: the pages (and the variants a reload switches
between), the devices of each host's config, the templates it saw archived, and how to make values."""

from __future__ import annotations

import copy
import json
import random

from . import codec

IDENTITY = [{"registerId": "model", "address": 0, "type": "string(8)"}]
MODELS = {"m1": "PRS-200", "m2": "PRS-200", "m3": "PRS-200", "m4": "PRS-300"}
PAGE_ORDER = ["heating", "motion", "table"]

# Page variants a reload switches between. Each key changes the layout of one register (a re-type), moves
# one, or takes one off the page; a template captured under one value of a key is refused (or, for a
# register taken off, has it left out) under another.
VARIANT_CHOICES = {
    "energyOrder": ["little", "big"],      # heating.energy u32 word order
    "gainType": ["s16", "u16"],            # motion.gain type
    "trim": [True, False],                 # motion.trim on the page or not
    "t420Type": ["u16", "s16"],            # table.t420 type
    "t437Address": [437, 438],             # table.t437 moved by one register
}
DEFAULT_VARIANT = {k: v[0] for k, v in VARIANT_CHOICES.items()}


def pages(variant: dict) -> dict[str, dict]:
    """The page definitions (config JSON) of a variant, by id."""
    heating = {
        "id": "heating", "title": "Heating", "identity": IDENTITY,
        "beforeWrite": [{"address": 1536, "value": 6868}], "afterWrite": [{"address": 2304, "value": 0}],
        "registers": [
            {"registerId": "heating.mode", "address": 100, "type": "u16", "enum": [0, 1, 2]},
            {"registerId": "heating.setpoint", "address": 101, "type": "s16", "min": -200, "max": 900},
            {"registerId": "heating.energy", "address": 102, "type": "u32", "wordOrder": variant["energyOrder"]},
            {"registerId": "heating.ramp", "address": 104, "type": "f32", "min": 0, "max": 100},
            {"registerId": "heating.spare", "address": 106, "type": "u16"},
            {"registerId": "heating.label", "address": 110, "type": "string(8)"},
            {"registerId": "comm.unit", "address": 200, "type": "u16", "clone": False},
            {"registerId": "heating.hours", "address": 202, "type": "u32", "access": "ro"},
        ],
    }
    motion_regs = [
        {"registerId": "motion.speed", "address": 300, "type": "u16", "max": 3000},
        {"registerId": "motion.accel", "address": 301, "type": "u16", "max": 1000},
        {"registerId": "motion.offset", "address": 302, "type": "s32", "min": -100000, "max": 100000},
        {"registerId": "motion.gain", "address": 304, "type": variant["gainType"]},
    ]
    if variant["trim"]:
        motion_regs.append({"registerId": "motion.trim", "address": 305, "type": "u16", "max": 5000})
    motion = {"id": "motion", "title": "Motion", "identity": IDENTITY, "registers": motion_regs}
    # Page order is not address order here: the 430 block is written before the 400 block.
    table_regs = [{"registerId": f"table.t{a}", "address": a if a != 437 else variant["t437Address"], "type": "u16",
                   "max": 5000} for a in range(430, 438)]
    for a in range(400, 424):
        r = {"registerId": f"table.t{a}", "address": a, "type": "u16", "max": 5000}
        if a == 420 and variant["t420Type"] == "s16":
            r = {"registerId": "table.t420", "address": 420, "type": "s16", "min": -1000, "max": 1000}
        table_regs.append(r)
    table = {"id": "table", "title": "Table", "identity": IDENTITY, "afterWrite": [{"address": 2305, "value": 1}],
             "registers": table_regs}
    return {"heating": heating, "motion": motion, "table": table}


def tracked_ranges() -> list[tuple[int, int]]:
    """Address ranges the harness reads with mbpoll (every variant's registers, identity and steps)."""
    return [(0, 112), (200, 106), (400, 39), (1536, 1), (2304, 2)]


def tracked_addresses() -> list[int]:
    return [a for start, n in tracked_ranges() for a in range(start, start + n)]


def page_key(page: dict) -> str:
    """Stands for the page hash: the same definition, the same key."""
    return json.dumps(page, sort_keys=True)


FLOATS = [0.0, 2.5, 10.25, 33.5, 99.5, 100.0, 0.125]
LABELS = ["Line 1", "Line 22", "ABC", "Z", "Press 7", ""]


def random_words(reg: dict, rng: random.Random, valid: bool = True) -> list[int]:
    """Words of a random value for a register; `valid=False` breaks its rule where it has one."""
    t = reg["type"]
    if not valid:
        if "enum" in reg:
            return codec.encode(max(reg["enum"]) + 1 + rng.randrange(5), reg)
        if "max" in reg:
            return codec.encode(reg["max"] + 1 + rng.randrange(50), reg)
    if t.startswith("string("):
        return codec.encode(rng.choice(LABELS), reg)
    if t == "f32":
        return codec.encode(rng.choice(FLOATS), reg)
    if "enum" in reg:
        return codec.encode(rng.choice(reg["enum"]), reg)
    lo = reg.get("min", 0 if t[0] == "u" else -(1 << (16 * codec.length(reg) - 1)))
    hi = reg.get("max", (1 << (16 * codec.length(reg))) - 2 if t[0] == "u" else (1 << (16 * codec.length(reg) - 1)) - 2)
    return codec.encode(rng.randint(lo, hi), reg)


class DeviceEntry:
    """One device of a host's config."""

    def __init__(self, id: str, machine: str, unit: int, pages: list[str], poll: str | None = None, quirks=None):
        self.id = id
        self.machine = machine
        self.unit = unit
        self.pages = pages
        self.poll = poll
        self.quirks = quirks or {}

    def config(self, ports: dict[str, int]) -> dict:
        d = {"id": self.id, "endpoint": f"tcp://127.0.0.1:{ports[self.machine]}", "unit": self.unit, "pages": self.pages,
             "quirks": dict({"timeout": "3s", "retries": 1}, **self.quirks)}
        if self.poll:
            d["poll"] = self.poll
        return d

    def max_write(self) -> int:
        return self.quirks.get("maxWriteRegisters", 123)

    def write_function(self) -> str:
        return self.quirks.get("writeFunction", "auto")


class HostConfig:
    """A host's config as the harness writes it: devices, the page variant, the fleet section."""

    def __init__(self, host: str, devices: list[DeviceEntry], variant: dict, hub_url: str | None):
        self.host = host
        self.devices = devices
        self.variant = dict(variant)
        self.hub_url = hub_url

    def copy(self) -> "HostConfig":
        return copy.deepcopy(self)

    def pages(self) -> dict[str, dict]:
        return pages(self.variant)

    def device(self, id: str) -> DeviceEntry | None:
        return next((d for d in self.devices if d.id == id), None)

    def by_machine(self, machine: str, unit: int) -> DeviceEntry | None:
        return next((d for d in self.devices if d.machine == machine and d.unit == unit), None)

    def json(self, ports: dict[str, int]) -> dict:
        c = {"version": 1, "history": 100000, "devices": [d.config(ports) for d in self.devices],
             "pages": [self.pages()[p] for p in PAGE_ORDER]}
        if self.hub_url:
            c["fleet"] = {"remote": self.hub_url, "interval": "0s", "host": self.host}
        return c


class Version:
    """A template version as the harness knows it: what the source held when it was archived."""

    def __init__(self, id: str, page: str, entries: list[dict], skipped: dict[str, str], identity: tuple, page_def: dict,
                 host: str, order: float, origin: str):
        self.id = id
        self.page = page
        self.entries = entries  # [{"registerId", "address", "words": tuple, "layout": tuple}] in page order
        self.skipped = skipped  # registerId -> reason
        self.identity = identity
        self.page_def = page_def
        self.host = host
        self.order = order  # when it was archived (the fleet's "latest" compares archive times)
        self.origin = origin  # how it came: capture, import, promote, fleet
        self.deleted = False

    def content_key(self):
        return (page_key(self.page_def), self.identity,
                tuple((e["registerId"], e["address"], e["words"]) for e in self.entries), tuple(sorted(self.skipped.items())))

    def __repr__(self):
        return f"{self.page} {self.id} ({self.origin})"


def capture_of(page: dict, content: dict[int, int]) -> tuple[list[dict], dict[str, str], list[str], tuple]:
    """What a capture of `page` from a machine holding `content` archives: entries, skipped, problems, identity."""
    entries, skipped, problems = [], {}, []
    for r in page["registers"]:
        words = tuple(content.get(r["address"] + i, 0) for i in range(codec.length(r)))
        if r.get("clone") is False:
            skipped[r["registerId"]] = "notCloned"
        elif r.get("access") == "ro":
            skipped[r["registerId"]] = "readOnly"
        elif codec.is_unset(words, r):
            skipped[r["registerId"]] = "unset"
        elif codec.problem(words, r):
            problems.append(f"{r['registerId']}: {codec.problem(words, r)}")
        else:
            entries.append({"registerId": r["registerId"], "address": r["address"], "words": words,
                            "layout": codec.layout_key(r)})
    identity = tuple(content.get(a, 0) for a in range(0, 4))
    return entries, skipped, problems, identity


def admission(version: Version, page: dict, local_host: str | None = None) -> tuple[list[dict], list[str], list[str]]:
    """The harness's own admission decision: (admitted entries in page order, left out ids, refusals). With
    `local_host`, another host's version captured against another definition than `page` is refused whatever its
    entries (a host writes another host's version only under the definition it was captured against)."""
    regs = {r["registerId"]: (i, r) for i, r in enumerate(page["registers"])}
    admitted, left_out, refused = [], [], []
    if local_host and version.host and version.host != local_host and page_key(version.page_def) != page_key(page):
        refused.append(f"{version.id}: another host's version captured against another definition")
    for e in version.entries:
        if e["registerId"] not in regs:
            left_out.append(e["registerId"])
            continue
        i, r = regs[e["registerId"]]
        if r["address"] != e["address"] or codec.length(r) != len(e["words"]):
            refused.append(f"{e['registerId']}: address/length")
        elif codec.layout_key(r) != e["layout"]:
            refused.append(f"{e['registerId']}: layout changed")
        elif r.get("clone") is False or r.get("access") == "ro" or codec.is_unset(e["words"], r) or codec.problem(e["words"], r):
            refused.append(f"{e['registerId']}: not archivable")
        else:
            admitted.append(dict(e, position=i, reg=r))
    admitted.sort(key=lambda e: e["position"])
    return admitted, left_out, refused
