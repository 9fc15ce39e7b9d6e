#!/usr/bin/env python3
"""A noisy serial line: relays Modbus RTU frames between two ptys and corrupts chosen replies.

usage: noisy_relay.py MASTER_PTY SLAVE_PTY [--corrupt N ...]

Bytes from MASTER_PTY (the client's side) go to SLAVE_PTY unchanged. Replies from SLAVE_PTY are
collected into whole frames (FC03/04: 5 + byte count; FC06/16: 8; exception: 5) and passed on; the
N-th reply (1-based, repeatable) has its last CRC byte flipped. Prints "READY" once both ends are open
and "CORRUPTED N" for each corrupted reply.
"""
import os
import select
import sys
import termios
import tty


def open_raw(path):
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)
    attrs = termios.tcgetattr(fd)
    attrs[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, attrs)
    return fd


def frame_length(buf):
    if len(buf) < 2:
        return None
    function = buf[1]
    if function & 0x80:
        return 5
    if function in (3, 4):
        return 5 + buf[2] if len(buf) >= 3 else None
    return 8


def main():
    master, slave = sys.argv[1], sys.argv[2]
    corrupt = {int(sys.argv[i + 1]) for i, a in enumerate(sys.argv) if a == "--corrupt"}
    m = open_raw(master)
    s = open_raw(slave)
    print("READY", flush=True)
    pending = b""
    replies = 0
    while True:
        readable, _, _ = select.select([m, s], [], [])
        if m in readable:
            data = os.read(m, 4096)
            if not data:
                return
            os.write(s, data)
        if s in readable:
            data = os.read(s, 4096)
            if not data:
                return
            pending += data
            while True:
                length = frame_length(pending)
                if length is None or len(pending) < length:
                    break
                frame, pending = bytearray(pending[:length]), pending[length:]
                replies += 1
                if replies in corrupt:
                    frame[-1] ^= 0xFF
                    print("CORRUPTED %d" % replies, flush=True)
                os.write(m, bytes(frame))


if __name__ == "__main__":
    main()
