#!/usr/bin/env python3
"""Reads a SunSpec device with pysunspec2's own client and prints every writable point's computed value.

  sunspec_read.py --port PORT [--unit 1]

Prints {"<model id>": {"<point path>": cvalue}} as JSON: the value scaled by its scale factor (pysunspec2's
`cvalue`), null for a point that is not implemented. Paths are group[index].point, as in sunspec_device.py.
"""
import argparse
import json

from sunspec2.modbus.client import SunSpecModbusClientDeviceTCP


def walk(group, path, out):
    for name, point in group.points.items():
        if point.pdef.get("access") == "RW" and point.pdef["type"] != "pad":
            out[(path + "." if path else "") + name] = point.cvalue
    for name, sub in group.groups.items():
        items = sub if isinstance(sub, list) else [sub]
        for i, g in enumerate(items):
            suffix = "[%d]" % (i + 1) if isinstance(sub, list) else ""
            walk(g, (path + "." if path else "") + name + suffix, out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--unit", type=int, default=1)
    args = p.parse_args()
    d = SunSpecModbusClientDeviceTCP(slave_id=args.unit, ipaddr="127.0.0.1", ipport=args.port, timeout=2)
    d.scan()
    result = {}
    for key, models in d.models.items():
        if not isinstance(key, int):
            continue
        for m in models:
            m.read()
            out = {}
            walk(m, "", out)
            result[str(key)] = out
    d.close()
    print(json.dumps(result, default=lambda v: str(v)))


if __name__ == "__main__":
    main()
