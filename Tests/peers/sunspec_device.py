#!/usr/bin/env python3
"""A SunSpec device image built with pysunspec2's own model definitions and encoder, for pymodbus_server.py.

  sunspec_device.py --models 1,103,123,126:2,704 --base 40000 --values-out FILE.json
  sunspec_device.py --models-dir          prints the directory of pysunspec2's JSON models (for --sunspec-models)

writes {address: [words]} for pymodbus_server.py --values: the "SunS" marker at --base, each model encoded by
pysunspec2 (sunspec2.device.Model(...).get_mb()) with every point given a value (MODEL:N repeats a model's
counted/filling group N times), then the end model 0xFFFF. Prints the values written per point (JSON) on stdout:
{"<model>": {"<point path>": value}} — the same path the Lastset page generator gives (group[index].point).
Read-only points other than ID, L and scale factors are left "not implemented".
"""
import argparse
import json
import os
import sys

import sunspec2.device as device
import sunspec2.mdef as mdef
from sunspec2.device import get_model_def


def values_for(point, i):
    """A value for a point: in range for its type, deterministic, distinct."""
    t = point.pdef["type"]
    if t == "sunssf":
        return [-2, -1, 0, 1][i % 4]
    if t in ("enum16", "enum32"):
        symbols = point.pdef.get("symbols") or [{"value": 1}]
        return symbols[i % len(symbols)]["value"]
    if t in ("bitfield16", "bitfield32"):
        return 5
    if t == "uint16":
        return 100 + i
    if t == "int16":
        return -(50 + i)
    if t in ("uint32", "acc32"):
        return 70000 + i
    if t == "int32":
        return -70000 - i
    if t in ("uint64", "acc64"):
        return 5_000_000_000 + i
    if t == "int64":
        return -5_000_000_000 - i
    if t == "float32":
        return 1.5 + i
    if t == "string":
        return ("s%d" % i)[: point.len * 2]
    return None


def fill(group, path, out, counter):
    for name, point in group.points.items():
        if name in ("ID", "L"):
            continue
        writable = point.pdef.get("access") == "RW"
        if writable or point.pdef["type"] == "sunssf":
            v = values_for(point, counter[0])
            counter[0] += 1
            if v is not None:
                point.value = v
                if writable:
                    out[(path + "." if path else "") + name] = v
    for name, sub in group.groups.items():
        items = sub if isinstance(sub, list) else [sub]
        for i, g in enumerate(items):
            suffix = "[%d]" % (i + 1) if isinstance(sub, list) else ""
            fill(g, (path + "." if path else "") + name + suffix, out, counter)


def model_length(mid, repeats):
    """The model's length for `repeats` of its repeating group (pysunspec2 sizes fixed models itself)."""
    gdef = get_model_def(mid)["group"]
    fixed = sum(p["size"] for p in gdef.get("points", [])) - 2
    for g in gdef.get("groups", []):
        size = sum(p["size"] for p in g.get("points", [])) + sum(
            sum(p["size"] for p in sg.get("points", [])) for sg in g.get("groups", []))
        fixed += size * (repeats if "count" in g else 1)
    return fixed


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models")
    p.add_argument("--models-dir", action="store_true", help="print the directory of pysunspec2's JSON models and exit")
    p.add_argument("--base", type=int, default=40000)
    p.add_argument("--values-out")
    args = p.parse_args()
    if args.models_dir:
        print(os.path.join(os.path.dirname(mdef.__file__), "models", "json"))
        return
    if not args.models or not args.values_out:
        p.error("--models and --values-out are required")
    address = args.base
    words = {str(address): [0x5375, 0x6E53]}
    address += 2
    written = {}
    for spec in args.models.split(","):
        mid, _, rep = spec.partition(":")
        mid, repeats = int(mid), int(rep or 1)
        length = model_length(mid, repeats)
        m = device.Model(model_id=mid, model_len=length)
        if m.error_info:
            sys.exit("model %d: %s" % (mid, m.error_info))
        out = {}
        fill(m, "", out, [0])
        data = m.get_mb()
        regs = [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]
        regs[0], regs[1] = mid, len(regs) - 2
        words[str(address)] = regs
        written[str(mid)] = out
        address += len(regs)
    words[str(address)] = [0xFFFF, 0]
    with open(args.values_out, "w", encoding="utf-8") as f:
        json.dump(words, f)
    json.dump(written, sys.stdout)
    print()


if __name__ == "__main__":
    main()
