#!/usr/bin/env python3
"""An independent Modbus peer for Lastset's tests: a pymodbus 3.16 server with fault injection.

TCP:  pymodbus_server.py --tcp 127.0.0.1:0      -> prints "READY <port>" once listening
RTU:  pymodbus_server.py --rtu /dev/pts/N        -> prints "READY rtu /dev/pts/N" once the port is open

One holding-register block (addresses 0 ..< --size) shared with the input registers (FC04 reads the
same words). Faults are injected through SimDevice(action=...), the hook pymodbus 3.16 provides:

  --values FILE.json      initial words: {"100": 7, "110": [1, 2, 3]} (address -> word or list of words)
  --max-read N            reads of more than N registers answer --max-read-exception (default 03)
  --delay-ms N            every reply is delayed by N ms
  --delay ADDR:MS         requests touching ADDR are delayed by MS ms
  --delay-write ADDR:MS   write requests touching ADDR are delayed by MS ms (reads are not)
  --exception ADDR:CODE[:TIMES]  requests touching ADDR answer CODE (only the first TIMES times if given)
  --refuse-fc16           FC16 answers exception 01
  --max-write N           FC16 writes of more than N registers answer exception 03
  --drop-after N          each connection is closed (without a reply) on its (N+1)th request
  --clamp ADDR:MAX        writes to ADDR store min(value, MAX)
  --write-log FILE        each write request that reaches the register block is appended as a JSON line
                          {"function": 6|16, "unit": U, "address": A, "count": C, "values": [...],
                           "exception": null | code answered instead of writing}
                          (requests outside the block are answered 02 by pymodbus before this hook)
  --arrival-log FILE      each request (read or write) reaching the register block is appended on arrival,
                          before any delay or fault, as a JSON line {"function": F, "address": A, "count": C}
                          (a test can wait until a delayed request is on the device)
  --frame-log FILE        every request that reaches the register block is appended as a JSON line, before
                          it is answered: {"n": SEQ, "t": UNIXTIME, "peer": "ADDR:PORT", "fc": F, "unit": U,
                          "address": A, "count": C, "values": [...], "exception": null | code}
                          (a write's words as received, a read's words as answered, [] when refused)
  --control               commands on stdin, one a line, each acknowledged in the frame log with
                          {"n": SEQ, "t": UNIXTIME, "control": LINE} (or "error") once in force:
                            faults [FAULT FLAGS]  replaces every fault (--max-read, --refuse-fc16, --delay-ms,
                                                  --exception, --max-write, --clamp)
                            set ADDR W[,W...]     sets registers, as the machine's own panel would: no frame
                            hold N                holds the N-th write request from now: its frame, then
                                                  {"hold": SEQ}; it is stored and answered on "release" (a
                                                  connection closed meanwhile logs {"cancelled": SEQ})
                            release               ends the hold
  --fault-free-unit N     requests to unit N see none of the faults (an inspector's reads of a faulty device)
  --unit N                answer only unit N (default: every unit)
  --units N,N,...         answer only these units, each with its own register block (a line of several devices);
                          every other unit gets no answer at all, FC43 included (as on a real serial line)
  --identity FILE.json    the FC43/14 device identification (ModbusDeviceIdentification): object name or id
                          -> text, e.g. {"VendorName": "Acme", "ProductCode": "PRS-200", "0x81": "line 7"}
                          (names: VendorName ProductCode MajorMinorRevision VendorUrl ProductName ModelName
                          UserApplicationName; private objects 0x80..0xFF)
  --exit-after-writes N   the Nth write request is logged, then the process dies without answering it
                          (a device killed right after storing a write)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import signal
import sys
import time

from pymodbus.constants import ExcCodes
from pymodbus.pdu.device import ModbusDeviceIdentification
from pymodbus.server import ModbusSerialServer, ModbusTcpServer
from pymodbus.server.requesthandler import ServerRequestHandler
from pymodbus.simulator import DataType, SimData, SimDevice


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--tcp", help="HOST:PORT to listen on (port 0 picks a free port)")
    where.add_argument("--rtu", help="serial device (e.g. one end of a socat pty pair)")
    p.add_argument("--baud", type=int, default=19200)
    p.add_argument("--unit", type=int, default=0, help="unit id served (0 = every unit)")
    p.add_argument("--units", help="comma-separated unit ids served (others get no answer)")
    p.add_argument("--size", type=int, default=4096, help="number of registers (addresses 0..size-1)")
    p.add_argument("--values", help="JSON file of initial words")
    p.add_argument("--max-read", type=int)
    p.add_argument("--max-read-exception", type=int, default=3)
    p.add_argument("--delay-ms", type=int, default=0)
    p.add_argument("--delay", action="append", default=[], metavar="ADDR:MS")
    p.add_argument("--delay-write", action="append", default=[], metavar="ADDR:MS")
    p.add_argument("--exception", action="append", default=[], metavar="ADDR:CODE[:TIMES]")
    p.add_argument("--refuse-fc16", action="store_true")
    p.add_argument("--max-write", type=int)
    p.add_argument("--drop-after", type=int)
    p.add_argument("--clamp", action="append", default=[], metavar="ADDR:MAX")
    p.add_argument("--write-log", help="file receiving one JSON line per write request")
    p.add_argument("--arrival-log", help="file receiving one JSON line per request on arrival")
    p.add_argument("--exit-after-writes", type=int)
    p.add_argument("--identity", help="JSON file: the FC43/14 device identification objects")
    p.add_argument("--frame-log", help="file receiving one JSON line per request")
    p.add_argument("--control", action="store_true", help="read commands from stdin")
    p.add_argument("--fault-free-unit", type=int, help="requests to this unit see no fault (an inspector's reads)")
    return p.parse_args()


def fault_parser() -> argparse.ArgumentParser:
    """The fault flags a --control "faults" command takes (each absent flag: that fault off)."""
    p = argparse.ArgumentParser(prog="faults", add_help=False, exit_on_error=False)
    p.add_argument("--max-read", type=int)
    p.add_argument("--max-read-exception", type=int, default=3)
    p.add_argument("--delay-ms", type=int, default=0)
    p.add_argument("--delay", action="append", default=[], metavar="ADDR:MS")
    p.add_argument("--delay-write", action="append", default=[], metavar="ADDR:MS")
    p.add_argument("--exception", action="append", default=[], metavar="ADDR:CODE[:TIMES]")
    p.add_argument("--refuse-fc16", action="store_true")
    p.add_argument("--max-write", type=int)
    p.add_argument("--clamp", action="append", default=[], metavar="ADDR:MAX")
    return p


IDENTIFICATION_NAMES = ["VendorName", "ProductCode", "MajorMinorRevision", "VendorUrl", "ProductName", "ModelName",
                        "UserApplicationName"]


def load_identity(path: str | None) -> ModbusDeviceIdentification | None:
    """The --identity file as pymodbus' device identification (object id -> text)."""
    if not path:
        return None
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    info = {}
    for key, text in data.items():
        object_id = IDENTIFICATION_NAMES.index(key) if key in IDENTIFICATION_NAMES else int(key, 0)
        info[object_id] = text
    return ModbusDeviceIdentification(info=info)


def load_values(path: str | None, size: int) -> list[int]:
    words = [0] * size
    if not path:
        return words
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    for key, value in data.items():
        address = int(key, 0)
        for i, word in enumerate(value if isinstance(value, list) else [value]):
            words[address + i] = int(word) & 0xFFFF
    return words


class Faults:
    """Fault settings and the write log, consulted by the SimDevice action."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.set_faults(args)
        self.write_log = open(args.write_log, "a", encoding="utf-8") if args.write_log else None
        self.arrival_log = open(args.arrival_log, "a", encoding="utf-8") if args.arrival_log else None
        self.frame_log = open(args.frame_log, "a", encoding="utf-8") if args.frame_log else None
        self.exit_after_writes = args.exit_after_writes
        self.fault_free_unit = args.fault_free_unit
        self.writes_seen = 0
        self.sequence = 0
        self.hold_countdown: int | None = None
        self.release_event: asyncio.Event | None = None

    def set_faults(self, args: argparse.Namespace) -> None:
        """Replaces every fault setting by those of `args`."""
        self.max_read = args.max_read
        self.max_read_exception = ExcCodes(args.max_read_exception)
        self.delay = args.delay_ms / 1000.0
        self.refuse_fc16 = args.refuse_fc16
        self.max_write = args.max_write
        self.address_delays = {int(a, 0): int(ms) / 1000.0 for a, ms in (s.split(":") for s in args.delay)}
        self.write_delays = {int(a, 0): int(ms) / 1000.0 for a, ms in (s.split(":") for s in args.delay_write)}
        # address -> [code, remaining times or None for always]
        self.exceptions: dict[int, list] = {}
        for spec in args.exception:
            parts = spec.split(":")
            self.exceptions[int(parts[0], 0)] = [ExcCodes(int(parts[1], 0)), int(parts[2]) if len(parts) > 2 else None]
        self.clamps = {int(a, 0): int(m, 0) for a, m in (s.split(":") for s in args.clamp)}

    def log(self, record: dict) -> None:
        """Appends one line to the frame log (one write, flushed: a reader never sees half a line)."""
        if self.frame_log:
            self.frame_log.write(json.dumps(record) + "\n")
            self.frame_log.flush()

    async def action(self, function_code, start_address, address, count, registers, set_values):
        unit = current_unit[0]  # read before any await: another connection's request may set it later
        peer = current_peer[0]
        # pymodbus calls the hook twice for a write: without the values, then with them (logged once).
        if self.arrival_log and (set_values is not None) == (function_code in (5, 6, 15, 16, 22, 23)):
            self.arrival_log.write(json.dumps({"function": function_code, "address": address, "count": count}) + "\n")
            self.arrival_log.flush()
        if unit == self.fault_free_unit:
            if self.frame_log and not (function_code in (6, 16) and set_values is None):
                self.sequence += 1
                words = [int(v) for v in (set_values if set_values is not None else
                                          registers[address - start_address:address - start_address + count])]
                self.log({"n": self.sequence, "t": time.time(), "peer": peer, "fc": function_code, "unit": unit,
                          "address": address, "count": count, "values": words, "exception": None})
            return None
        delay = max([self.delay] + [self.address_delays.get(a, 0.0) for a in range(address, address + count)])
        if set_values is not None:
            delay = max([delay] + [self.write_delays.get(a, 0.0) for a in range(address, address + count)])
        if delay:
            await asyncio.sleep(delay)
        result = self.fault(function_code, address, count)
        # pymodbus reads a written register back (same function code, no values) to echo an FC06 answer:
        # that is no request of the client's, and is not logged.
        echo = function_code in (6, 16) and set_values is None
        if self.frame_log and not echo:
            self.sequence += 1
            n = self.sequence
            if set_values is not None:
                words = [int(v) for v in set_values]
            elif result is None:
                words = [int(v) for v in registers[address - start_address:address - start_address + count]]
            else:
                words = []
            self.log({"n": n, "t": time.time(), "peer": peer, "fc": function_code, "unit": unit, "address": address,
                      "count": count, "values": words, "exception": int(result) if result is not None else None})
            if set_values is not None and self.hold_countdown is not None:
                self.hold_countdown -= 1
                if self.hold_countdown <= 0:
                    self.hold_countdown = None
                    self.release_event = asyncio.Event()
                    self.log({"n": n, "t": time.time(), "hold": n})
                    try:
                        await self.release_event.wait()
                    except asyncio.CancelledError:
                        self.log({"n": n, "t": time.time(), "cancelled": n})
                        raise
        if set_values is not None:
            if self.write_log:
                self.write_log.write(json.dumps({
                    "function": function_code, "unit": unit, "address": address,
                    "count": count, "values": [int(v) for v in set_values],
                    "exception": int(result) if result is not None else None,
                }) + "\n")
                self.write_log.flush()
            self.writes_seen += 1
            if self.exit_after_writes is not None and self.writes_seen >= self.exit_after_writes:
                os._exit(0)
            if result is None:
                for i in range(len(set_values)):
                    limit = self.clamps.get(address + i)
                    if limit is not None and set_values[i] > limit:
                        set_values[i] = limit
        return result

    def fault(self, function_code, address, count):
        """The exception code this request must answer, or None."""
        if function_code in (3, 4) and self.max_read is not None and count > self.max_read:
            return self.max_read_exception
        if function_code == 16 and self.refuse_fc16:
            return ExcCodes.ILLEGAL_FUNCTION
        if function_code == 16 and self.max_write is not None and count > self.max_write:
            return ExcCodes.ILLEGAL_VALUE
        for a in range(address, address + count):
            entry = self.exceptions.get(a)
            if entry is not None and (entry[1] is None or entry[1] > 0):
                if entry[1] is not None:
                    entry[1] -= 1
                return entry[0]
        return None


# Unit and client of the request being handled (the action hook does not receive them).
current_unit = [0]
current_peer = ["-"]


def make_handler_class(drop_after: int | None, units: set[int] | None):
    class Handler(ServerRequestHandler):
        """Counts requests per connection; closes the connection instead of answering past the limit."""

        served = 0

        async def handle_request(self):
            if not self.last_pdu:
                return
            current_unit[0] = self.last_pdu.dev_id
            if units is not None and self.last_pdu.dev_id not in units:
                # pymodbus answers FC43 for any unit (its identification is not per device): a missing device
                # answers nothing, as on a real line.
                return
            peername = self.transport.get_extra_info("peername") if self.transport else None
            current_peer[0] = f"{peername[0]}:{peername[1]}" if peername else "-"
            if drop_after is not None:
                if self.served >= drop_after:
                    self.served = 0
                    if self.transport:
                        self.transport.close()
                    return
                self.served += 1
            await super().handle_request()

    return Handler


async def start_control(server, faults: Faults, unit: int) -> None:
    """Reads --control commands from stdin on the event loop (so each takes effect between requests)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    registers = server.context.devices[unit].block["x"][2]

    def run(words: list[str]) -> None:
        command, rest = words[0], words[1:]
        if command == "faults":
            faults.set_faults(fault_parser().parse_args(rest))
        elif command == "set":
            if len(rest) != 2:
                raise ValueError("usage: set ADDR W[,W...]")
            address = int(rest[0], 0)
            for i, word in enumerate(rest[1].split(",")):
                registers[address + i] = int(word, 0) & 0xFFFF
        elif command == "hold":
            faults.hold_countdown = int(rest[0])
        elif command == "release":
            faults.hold_countdown = None
            if faults.release_event:
                faults.release_event.set()
                faults.release_event = None
        else:
            raise ValueError(f"unknown command {command!r}")

    async def serve() -> None:
        while line := await reader.readline():
            text = line.decode().strip()
            if not text:
                continue
            try:
                run(shlex.split(text))
                faults.log({"n": faults.sequence, "t": time.time(), "control": text})
            except (ValueError, IndexError, argparse.ArgumentError, SystemExit) as e:
                faults.log({"n": faults.sequence, "t": time.time(), "error": f"{text}: {e}"})

    # The loop keeps only a weak reference to a task: without this one the reader is collected mid-run.
    control_tasks.append(asyncio.ensure_future(serve()))


control_tasks: list[asyncio.Task] = []


async def main() -> None:
    args = parse_args()
    faults = Faults(args)
    units = sorted({int(u) for u in args.units.split(",")}) if args.units else None
    devices = [
        SimDevice(
            id=unit,
            simdata=SimData(address=0, values=load_values(args.values, args.size), datatype=DataType.REGISTERS),
            action=faults.action,
        )
        for unit in (units or [args.unit])
    ]
    device = devices if units else devices[0]
    handler_class = make_handler_class(args.drop_after, set(units) if units else None)

    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        server = ModbusTcpServer(device, address=(host or "127.0.0.1", int(port)), identity=load_identity(args.identity))
    else:
        server = ModbusSerialServer(device, port=args.rtu, baudrate=args.baud, reconnect_delay=0.1,
                                    identity=load_identity(args.identity))
    server.callback_new_connection = lambda: handler_class(
        server, server.trace_packet, server.trace_pdu, server.trace_connect)
    await server.serve_forever(background=True)
    if args.tcp:
        bound = server.transport.sockets[0].getsockname()[1]
        print(f"READY {bound}", flush=True)
    else:
        print(f"READY rtu {args.rtu}", flush=True)

    if args.control:
        await start_control(server, faults, args.unit)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    # pymodbus' graceful shutdown waits on open client connections; a test peer just leaves.
    if faults.write_log:
        faults.write_log.close()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
