#!/usr/bin/env python3
"""pymodbus baseline of the Lastset benchmarks: a worker driven over stdin by lastset-bench.

Same line protocol as Benchmarks/c/lastset_bench_c.c (one answer line per command):

  connect ID HOST PORT                  -> "ok"                       (not timed)
  read ID UNIT START COUNT MAXREAD      -> "ok NS REQUESTS"           FC03 in chunks of MAXREAD
  replay ID UNIT START COUNT MAXWRITE   -> "ok NS REQUESTS MISMATCHES" FC16 chunk, then FC03 read-back
  readplan ID UNIT A:N,A:N,...          -> "ok NS REQUESTS"           one FC03 per pair (the harness's plan)
  replayplan ID UNIT A:N,A:N,...        -> "ok NS REQUESTS MISMATCHES" one FC16 + FC03 read-back per pair
  quit

Uses pymodbus's synchronous ModbusTcpClient (the usual way a provisioning script is written).
"""
import sys
import time

from pymodbus.client import ModbusTcpClient


def bench_value(address: int) -> int:
    return (address * 7 + 1) % 50000


def main() -> None:
    clients: dict[int, ModbusTcpClient] = {}
    out = sys.stdout
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        command = parts[0]
        if command == "quit":
            break
        try:
            if command == "connect":
                cid, host, port = int(parts[1]), parts[2], int(parts[3])
                if cid in clients:
                    clients[cid].close()
                client = ModbusTcpClient(host, port=port, timeout=2, retries=0)
                if not client.connect():
                    out.write(f"err cannot connect to {host}:{port}\n")
                else:
                    clients[cid] = client
                    out.write("ok\n")
                out.flush()
                continue
            if command == "windowplan":
                cid, unit = int(parts[1]), int(parts[2])
                plan = [(item[0], *(int(x) for x in item[1:].split(":"))) for item in parts[3].split(",")]
                client = clients[cid]
                requests = 0
                mismatches = 0
                wrote = False
                t0 = time.perf_counter_ns()
                for kind, a, n in plan:
                    values = [bench_value(x) for x in range(a, a + n)]
                    requests += 1
                    if kind == "w":
                        wr = client.write_registers(a, values, device_id=unit)
                        if wr.isError():
                            raise RuntimeError(f"write {a}+{n}: {wr}")
                        wrote = True
                    else:
                        rr = client.read_holding_registers(a, count=n, device_id=unit)
                        if rr.isError() or len(rr.registers) != n:
                            raise RuntimeError(f"read {a}+{n}: {rr}")
                        # The snapshot (reads before the first write) is not compared.
                        if wrote and list(rr.registers) != values:
                            mismatches += 1
                elapsed = time.perf_counter_ns() - t0
                out.write(f"ok {elapsed} {requests} {mismatches}\n")
                out.flush()
                continue
            if command in ("readplan", "replayplan"):
                cid, unit = int(parts[1]), int(parts[2])
                plan = [tuple(int(x) for x in item.split(":")) for item in parts[3].split(",")]
                client = clients[cid]
                requests = 0
                mismatches = 0
                t0 = time.perf_counter_ns()
                for a, n in plan:
                    if command == "replayplan":
                        values = [bench_value(x) for x in range(a, a + n)]
                        requests += 1
                        wr = client.write_registers(a, values, device_id=unit)
                        if wr.isError():
                            raise RuntimeError(f"write {a}+{n}: {wr}")
                    requests += 1
                    rr = client.read_holding_registers(a, count=n, device_id=unit)
                    if rr.isError() or len(rr.registers) != n:
                        raise RuntimeError(f"read {a}+{n}: {rr}")
                    if command == "replayplan" and list(rr.registers) != values:
                        mismatches += 1
                elapsed = time.perf_counter_ns() - t0
                if command == "replayplan":
                    out.write(f"ok {elapsed} {requests} {mismatches}\n")
                else:
                    out.write(f"ok {elapsed} {requests}\n")
                out.flush()
                continue
            cid, unit, start, count, chunk = (int(p) for p in parts[1:6])
            client = clients[cid]
            requests = 0
            mismatches = 0
            t0 = time.perf_counter_ns()
            if command == "read":
                a = start
                while a < start + count:
                    n = min(chunk, start + count - a)
                    requests += 1
                    rr = client.read_holding_registers(a, count=n, device_id=unit)
                    if rr.isError() or len(rr.registers) != n:
                        raise RuntimeError(f"read {a}+{n}: {rr}")
                    a += n
                elapsed = time.perf_counter_ns() - t0
                out.write(f"ok {elapsed} {requests}\n")
            elif command == "replay":
                a = start
                while a < start + count:
                    n = min(chunk, start + count - a)
                    values = [bench_value(x) for x in range(a, a + n)]
                    requests += 1
                    wr = client.write_registers(a, values, device_id=unit)
                    if wr.isError():
                        raise RuntimeError(f"write {a}+{n}: {wr}")
                    requests += 1
                    rr = client.read_holding_registers(a, count=n, device_id=unit)
                    if rr.isError():
                        raise RuntimeError(f"read back {a}+{n}: {rr}")
                    if list(rr.registers) != values:
                        mismatches += 1
                    a += n
                elapsed = time.perf_counter_ns() - t0
                out.write(f"ok {elapsed} {requests} {mismatches}\n")
            else:
                out.write(f"err unknown command {command!r}\n")
        except Exception as exc:  # reported to the harness, which fails the run
            out.write(f"err {exc}\n".replace("\n", " ").rstrip() + "\n")
        out.flush()
    for client in clients.values():
        client.close()


if __name__ == "__main__":
    main()
