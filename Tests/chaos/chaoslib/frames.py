"""The machines' own logs of every request they received (lastset-sim --log-frames, the pymodbus peer's
--frame-log), read incrementally into one record shape:

  {"kind": "frame", "seq", "t", "peer", "fc", "unit", "address", "count", "values": tuple, "exception"}
  {"kind": "hold" | "cancelled", "seq", "t"}      a held write / a held write whose connection closed
  {"kind": "control" | "error", "seq", "t", "text"} a control command in force / refused

Only whole lines are taken: a line being written is left for the next read."""

from __future__ import annotations

import json


class FrameReader:
    def __init__(self, path: str, kind: str):
        self.path = path
        self.kind = kind
        self.offset = 0
        self.partial = b""
        self.records: list[dict] = []

    def poll(self) -> list[dict]:
        """Reads what was appended since the last call; returns every record so far."""
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            data = f.read()
        self.offset += len(data)
        data = self.partial + data
        lines = data.split(b"\n")
        self.partial = lines.pop()
        for raw in lines:
            line = raw.decode(errors="replace").strip()
            if not line:
                continue
            r = self._parse_sim(line) if self.kind == "sim" else self._parse_py(line)
            if r is not None:
                self.records.append(r)
        return self.records

    def controls_since(self, index: int) -> list[dict]:
        self.poll()
        return [r for r in self.records[index:] if r["kind"] in ("control", "error")]

    @staticmethod
    def _parse_sim(line: str):
        head, _, rest = line.partition(" ")
        if head not in ("FRAME", "HOLD", "CONTROL", "ERROR"):
            return None  # READY and anything else the simulator prints
        fields = {}
        words = rest.split(" ")
        text_start = None
        for i, w in enumerate(words):
            k, eq, v = w.partition("=")
            if not eq or k not in ("n", "t", "peer", "fc", "unit", "address", "count", "values", "exception"):
                text_start = i
                break
            fields[k] = v
        seq = int(fields["n"])
        t = float(fields["t"])
        if head == "FRAME":
            values = tuple(int(x) for x in fields.get("values", "").split(",") if x != "")
            return {"kind": "frame", "seq": seq, "t": t, "peer": fields.get("peer"), "fc": int(fields["fc"]),
                    "unit": int(fields["unit"]), "address": int(fields["address"]), "count": int(fields["count"]),
                    "values": values, "exception": int(fields["exception"], 16) if "exception" in fields else None}
        if head == "HOLD":
            return {"kind": "hold", "seq": seq, "t": t}
        text = " ".join(words[text_start:]) if text_start is not None else ""
        return {"kind": "control" if head == "CONTROL" else "error", "seq": seq, "t": t, "text": text}

    @staticmethod
    def _parse_py(line: str):
        d = json.loads(line)
        if "fc" in d:
            return {"kind": "frame", "seq": d["n"], "t": d["t"], "peer": d.get("peer"), "fc": d["fc"], "unit": d["unit"],
                    "address": d["address"], "count": d["count"], "values": tuple(d["values"]),
                    "exception": d["exception"]}
        if "hold" in d:
            return {"kind": "hold", "seq": d["n"], "t": d["t"]}
        if "cancelled" in d:
            return {"kind": "cancelled", "seq": d["n"], "t": d["t"]}
        if "control" in d:
            return {"kind": "control", "seq": d["n"], "t": d["t"], "text": d["control"]}
        if "error" in d:
            return {"kind": "error", "seq": d["n"], "t": d["t"], "text": d["error"]}
        return None


def is_write(r: dict) -> bool:
    return r["kind"] == "frame" and r["fc"] in (6, 16)


def describe(r: dict) -> str:
    if r["kind"] != "frame":
        return f"{r['kind']} n={r['seq']} {r.get('text', '')}".strip()
    fc = {3: "FC03", 4: "FC04", 6: "FC06", 16: "FC16"}.get(r["fc"], f"FC{r['fc']:02d}")
    v = ",".join(str(x) for x in r["values"][:16]) + ("…" if len(r["values"]) > 16 else "")
    ex = f" exception {r['exception']:02X}" if r["exception"] is not None else ""
    return f"#{r['seq']} {fc} unit {r['unit']} {r['address']}+{r['count']} [{v}]{ex} (peer {r['peer']})"
