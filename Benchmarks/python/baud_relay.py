#!/usr/bin/env python3
"""A serial line at its real speed between two ptys, for lastset-bench's RTU figures.

A socat pty pair moves bytes as fast as the kernel can: no baud rate. This relay opens two pty pairs
(one end for the client, one for the device) and delivers every byte no sooner than a real line would:
one character takes CHAR_BITS / BAUD seconds (8E1: start + 8 data + parity + stop = 11 bits), and a new
frame (bytes arriving after the line in that direction has been idle) starts no sooner than 3.5
characters after the end of the previous one, the RTU inter-frame gap. The two directions are separate
share one line (RS-485, half duplex): a reply starts no sooner than 3.5 characters after the request's
last byte, and the next request no sooner than 3.5 characters after the reply's.

Prints "READY CLIENT_PTY DEVICE_PTY" once both are open; runs until stdin closes or SIGTERM.
usage: baud_relay.py BAUD [CHAR_BITS]
"""

import os
import select
import signal
import sys
import time
import tty


def main() -> None:
    if len(sys.argv) not in (2, 3):
        sys.stderr.write(__doc__)
        sys.exit(64)
    baud = int(sys.argv[1])
    char_bits = int(sys.argv[2]) if len(sys.argv) == 3 else 11
    char = char_bits / baud
    gap = 3.5 * char
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    pairs = []
    for _ in range(2):
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: bytes as they are
        tty.setraw(master)
        os.set_blocking(master, False)
        pairs.append((master, slave, os.ttyname(slave)))
    (client_master, _, client_path), (device_master, _, device_path) = pairs
    # The slave fds stay open here, so a master never reads EIO while a side reopens its end.
    print(f"READY {client_path} {device_path}", flush=True)

    # Per direction: bytes queued with the time each may be delivered, and when the line is free.
    queues = {client_master: [], device_master: []}  # keyed by the master the bytes came from
    # A byte is handed on when its last bit would have arrived.
    line_free = 0.0  # when the last byte queued on the line ends
    other = {client_master: device_master, device_master: client_master}
    while True:
        now = time.monotonic()
        due = [q[0][0] for q in queues.values() if q]
        timeout = max(0.0, min(due) - now) if due else None
        readable, _, _ = select.select([client_master, device_master, sys.stdin], [], [], timeout)
        now = time.monotonic()
        for fd in readable:
            if fd is sys.stdin:
                if not sys.stdin.buffer.read1(4096):
                    return
                continue
            try:
                data = os.read(fd, 4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:
                continue
            # A byte starts when the line is free; after an idle line, the inter-frame gap first.
            start = line_free
            if now >= start:
                start = max(now, start + gap)
            for b in data:
                start += char
                queues[fd].append((start, b))
            line_free = start
        for src, q in queues.items():
            out = bytearray()
            while q and q[0][0] <= now:
                out.append(q.pop(0)[1])
            if out:
                dst = other[src]
                view = memoryview(out)
                while view:
                    try:
                        n = os.write(dst, view)
                        view = view[n:]
                    except BlockingIOError:
                        select.select([], [dst], [], 0.01)


if __name__ == "__main__":
    main()
