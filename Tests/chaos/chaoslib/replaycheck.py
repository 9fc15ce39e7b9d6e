"""Invariants (a) and (b) for one page of one replay, decided from the target machine's frame log alone.

(a) every write frame is one of: the page's beforeWrite steps (in order, first), this job's template words
    at their page addresses in page order (whole registers, unless the FC06 path is in use or the register
    is longer than the device's write limit), the page's afterWrite steps, or — under onError rollback — the
    snapshot words of registers this job's frames may have changed;
(b) under stop and rollback nothing of the template is written past the window of a mismatch or a final
    rejection (the first read after the failure closes the window), and afterWrite is sent only once every
    entry was written and read back equal after its last write, with no failure before."""

from __future__ import annotations

from . import codec
from .frames import describe


class PageExpect:
    """What the harness expects one page's replay to be allowed to send."""

    def __init__(self, page: dict, admitted: list[dict], on_error: str, max_write: int, write_function: str,
                 snapshot: dict[int, int], unit: int, version_id: str | None):
        self.page = page
        self.page_id = page["id"]
        self.entries = admitted  # in page order, each with "words", "address", "position", "reg"
        self.before = [(s["address"], s["value"]) for s in page.get("beforeWrite", [])]
        self.after = [(s["address"], s["value"]) for s in page.get("afterWrite", [])]
        self.on_error = on_error
        self.max_write = max_write
        self.write_function = write_function
        self.snapshot = snapshot
        self.unit = unit
        self.version_id = version_id
        # address -> (entry index, offset in the entry)
        self.where = {}
        for i, e in enumerate(admitted):
            for o in range(len(e["words"])):
                self.where[e["address"] + o] = (i, o)
        self.step_addresses = {a for a, _ in self.before + self.after}

    def owns(self, address: int) -> bool:
        """Whether a write at this address can belong to this page (its entries or its steps)."""
        if address in self.where or address in self.step_addresses:
            return True
        return any(r["address"] <= address < r["address"] + codec.length(r) for r in self.page["registers"])


class PageReplayCheck:
    def __init__(self, exp: PageExpect):
        self.exp = exp
        self.violations: list[str] = []
        self.phase = "before"
        self.before_next = 0
        self.floor = (-1, 0)
        self.last_t = None
        self.fellback = False
        self.final_failure = None  # description of the first final failure
        self.closed = False  # a read came after the final failure: the window is over
        self.acked = set()  # entry indexes with an acknowledged template frame on any of their words
        self.acked_words = {}  # entry index -> set of offsets acknowledged
        self.rejected = {}  # entry index -> exception code of the last refused frame covering it
        self.verified = {}  # entry index -> True/False: the last read after its last write equalled the template
        self.readback = {}  # entry index -> words of the last read after its last write
        self.read_words = {}  # entry index -> words read since its last write (parts not read: the template's)
        self.pending = {}  # entry index -> offsets not yet read since its last write
        self.after_sent = []
        self.after_failed = False
        self.rollback_frames = 0
        self.template_frames = 0
        self.step_frames = 0
        self.writes = 0

    def v(self, text: str, r: dict | None = None):
        self.violations.append(f"{self.exp.page_id}: {text}" + (f" — frame {describe(r)}" if r else ""))

    # --- reads ---
    def read(self, r: dict):
        """A read answered: the words it carries count as read-back of each entry written before it (a register
        may be read in parts, by reads of a device with a small read limit)."""
        if r["exception"] is not None or r["fc"] not in (3, 4):
            return
        if self.phase == "rollback":
            # The rollback's read-backs check the restored words, not the template's: a register verified
            # before the rollback stays verified in the report (chaos seed 10 was a false violation).
            return
        start, words = r["address"], r["values"]
        for k, word in enumerate(words):
            where = self.exp.where.get(start + k)
            if where is None or where[0] not in self.acked:
                continue
            i, o = where
            e = self.exp.entries[i]
            got = self.read_words.setdefault(i, list(e["words"]))
            got[o] = word
            self.pending.setdefault(i, set()).discard(o)
            if word != e["words"][o]:
                self.verified[i] = False
                self.readback[i] = tuple(got)
                if self.exp.on_error != "continue" and self.final_failure is None and self.phase == "writes":
                    self.final_failure = f"mismatch at {e['registerId']} (word {o} read back {word})"
            elif not self.pending[i]:
                self.readback[i] = tuple(got)
                self.verified[i] = tuple(got) == tuple(e["words"])
        if self.final_failure is not None:
            self.closed = True

    # --- writes ---
    def write(self, r: dict):
        self.writes += 1
        exp = self.exp
        if r["unit"] != exp.unit:
            self.v(f"write to unit {r['unit']}, the job's target is unit {exp.unit}", r)
        addrs = list(range(r["address"], r["address"] + len(r["values"])))
        # 1. beforeWrite steps, in order, before anything else.
        if self.phase == "before" and self.before_next < len(exp.before) and r["fc"] == 6 \
                and (r["address"], r["values"][0]) == exp.before[self.before_next]:
            self.before_next += 1
            self.step_frames += 1
            if r["exception"] is not None:
                self.final_failure = "beforeWrite refused"
            return
        # 2. template words.
        t_ok, why = self.template_fit(r, addrs)
        if t_ok and self.phase in ("before", "writes") and not (self.closed and exp.on_error != "continue"):
            self.template(r, addrs)
            return
        # 3. afterWrite steps.
        if r["fc"] == 6 and self.phase in ("before", "writes", "after") and (r["address"], r["values"][0]) in exp.after:
            self.step_frames += 1
            self.commit(r)
            return
        # 4. rollback.
        if exp.on_error == "rollback" and self.rollback_fit(r, addrs):
            self.phase = "rollback"
            self.rollback_frames += 1
            return
        if t_ok and self.closed and exp.on_error != "continue":
            self.v(f"template written after the window of a failure under onError {exp.on_error} "
                   f"({self.final_failure})", r)
        elif t_ok:
            self.v(f"template written in phase {self.phase}", r)
        else:
            self.v(f"write fits neither the template ({why}), the page's steps nor a rollback", r)

    def template_fit(self, r: dict, addrs: list[int]):
        exp = self.exp
        if not addrs:
            return False, "no words"
        for a, w in zip(addrs, r["values"]):
            if a not in exp.where:
                return False, f"address {a} is no admitted entry of the template"
            i, o = exp.where[a]
            if exp.entries[i]["words"][o] != w:
                return False, f"{exp.entries[i]['registerId']} word {o} is {w}, the template's is {exp.entries[i]['words'][o]}"
        return True, ""

    def template(self, r: dict, addrs: list[int]):
        exp = self.exp
        if self.phase == "before" and self.before_next < len(exp.before):
            self.v(f"template written before beforeWrite step {self.before_next} was sent", r)
        self.phase = "writes"
        self.template_frames += 1
        first, last = exp.where[addrs[0]], exp.where[addrs[-1]]
        # Whole registers, unless the FC06 path is in use or the register is longer than the write limit.
        for (i, o), edge in ((first, "starts"), (last, "ends")):
            e = exp.entries[i]
            n = len(e["words"])
            partial = o != 0 if edge == "starts" else o != n - 1
            if partial:
                fc06_path = r["fc"] == 6 and (exp.write_function == "fc06" or self.fellback)
                if not (fc06_path or n > exp.max_write):
                    self.v(f"splits the words of {e['registerId']} ({n} registers, device write limit "
                           f"{exp.max_write}, {'FC06 path' if fc06_path else 'FC16'})", r)
        key = (first[0], first[1])
        same = self.last_t is not None and (self.last_t["address"], self.last_t["values"]) == (r["address"], r["values"])
        if key < self.floor and not same:
            self.v(f"template frame out of page order (starts at {exp.entries[first[0]]['registerId']} "
                   f"word {first[1]} after the write reached position {self.floor})", r)
        self.last_t = r
        if r["exception"] is None:
            for a in addrs:
                i, o = exp.where[a]
                self.acked.add(i)
                self.acked_words.setdefault(i, set()).add(o)
                self.verified[i] = False
                self.readback.pop(i, None)
                self.rejected.pop(i, None)
                self.pending[i] = set(range(len(exp.entries[i]["words"])))
                self.read_words.pop(i, None)
            self.floor = max(self.floor, (last[0], last[1] + 1))
            return
        code = r["exception"]
        for a in addrs:
            self.rejected[exp.where[a][0]] = code
        if r["fc"] == 16 and code == 1 and exp.write_function == "auto" and not self.fellback:
            self.fellback = True  # the FC06 fallback re-plans from this frame on
            self.floor = key
        elif r["fc"] == 16 and code == 3 and len(r["values"]) > 1:
            self.floor = key  # halved writes from this frame on
        else:
            if exp.on_error != "continue" and self.final_failure is None:
                self.final_failure = f"{exp.entries[first[0]]['registerId']} rejected with exception {code:02X}"
            self.floor = max(self.floor, (last[0], last[1] + 1))

    def commit(self, r: dict):
        exp = self.exp
        if self.phase == "rollback":
            self.v("afterWrite sent after the rollback began", r)
        missing = [e["registerId"] for i, e in enumerate(exp.entries) if not self.verified.get(i)]
        if self.final_failure:
            self.v(f"afterWrite sent after a failure ({self.final_failure})", r)
        elif missing:
            self.v(f"afterWrite sent before every entry was written and read back equal: {', '.join(missing[:6])}", r)
        elif self.before_next < len(exp.before):
            self.v("afterWrite sent without the beforeWrite steps", r)
        self.phase = "after"
        self.after_sent.append((r["address"], r["values"][0], r["exception"]))
        if r["exception"] is not None:
            self.after_failed = True

    def touched_addresses(self) -> set[int]:
        """Every word of every register a frame of this job may have changed."""
        out = set()
        for i in self.acked:
            e = self.exp.entries[i]
            out.update(range(e["address"], e["address"] + len(e["words"])))
        return out

    def rollback_fit(self, r: dict, addrs: list[int]) -> bool:
        touched = self.touched_addresses()
        if not addrs or any(a not in touched for a in addrs):
            return False
        return all(self.exp.snapshot.get(a) == w for a, w in zip(addrs, r["values"]))

    def finish(self) -> dict:
        exp = self.exp
        return {
            "acked": {exp.entries[i]["registerId"] for i in self.acked},
            "fully_acked": {exp.entries[i]["registerId"] for i in self.acked
                            if len(self.acked_words.get(i, ())) == len(exp.entries[i]["words"])},
            "rejected": {exp.entries[i]["registerId"]: c for i, c in self.rejected.items()},
            "verified": {exp.entries[i]["registerId"] for i, ok in self.verified.items() if ok},
            "readback": {exp.entries[i]["registerId"]: w for i, w in self.readback.items()},
            "final_failure": self.final_failure,
            "after_sent": self.after_sent,
            "after_failed": self.after_failed,
            "rollback_frames": self.rollback_frames,
            "template_frames": self.template_frames,
            "writes": self.writes,
            "fellback": self.fellback,
            "before_done": self.before_next == len(exp.before),
            "touched": {exp.entries[i]["registerId"] for i in self.acked},
        }


def check_frames(records: list[dict], pages: list[PageExpect]) -> tuple[list[str], list[dict]]:
    """Runs (a) and (b) over one job's frames on its target machine; pages in the order the job runs them."""
    checks = [PageReplayCheck(p) for p in pages]
    violations = []
    current = 0
    for r in records:
        if r["kind"] != "frame":
            continue
        if r["fc"] in (6, 16):
            owner = next((k for k, p in enumerate(pages) if p.owns(r["address"])), None)
            if owner is None:
                violations.append(f"write to an address no page of the job has — frame {describe(r)}")
                continue
            if owner < current:
                violations.append(f"write for page {pages[owner].page_id} after page {pages[current].page_id} began "
                                  f"(pages run in config order) — frame {describe(r)}")
            current = max(current, owner)
            checks[owner].write(r)
        else:
            for c in checks:
                c.read(r)
    summaries = []
    for c in checks:
        violations += c.violations
        summaries.append(c.finish())
    return violations, summaries
