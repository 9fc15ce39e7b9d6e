#!/usr/bin/env python3
"""A slow-loris client for the daemon's Unix socket (issue 19, defect 15).

usage: slow_client.py SOCKET COUNT INTERVAL [--body]

Opens COUNT connections one after the other and starts a request on each: the request line and a Host header,
then one more header line every INTERVAL seconds (with --body: a POST announcing a 100000-byte body, then one
body byte every INTERVAL seconds), never finishing it. Prints, one line each, flushed:
  READY <count>                once every connection is open and has sent its first line
  ANSWERED <i> <status> <code> when the server answers connection i (e.g. a refusal: 503 too_many_connections)
  CLOSED <i> <seconds>         when the server closes connection i, seconds after it was opened
  ALL CLOSED                   when no connection is left
Runs until every connection is closed or it is terminated.
"""
import json
import select
import socket
import sys
import time


def main():
    path, count, interval = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    body = "--body" in sys.argv[4:]
    start = "POST /v1/reload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" if body else \
        "GET /v1/health HTTP/1.1\r\nHost: x\r\n"
    conns = {}
    for i in range(count):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        try:
            s.sendall(start.encode())
        except OSError:
            pass
        conns[i] = (s, time.monotonic(), b"")
    print(f"READY {count}", flush=True)
    tick = 0
    next_send = time.monotonic() + interval
    while conns:
        timeout = max(0.0, next_send - time.monotonic())
        readable, _, _ = select.select([c[0] for c in conns.values()], [], [], timeout)
        for i, (s, opened, seen) in list(conns.items()):
            if s not in readable:
                continue
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if data:
                seen += data
                conns[i] = (s, opened, seen)
                if b"\r\n\r\n" in seen:
                    head, _, rest = seen.partition(b"\r\n\r\n")
                    status = head.split(b" ")[1].decode()
                    try:
                        code = json.loads(rest.decode())["error"]["code"]
                    except (ValueError, KeyError):
                        code = "-"
                    print(f"ANSWERED {i} {status} {code}", flush=True)
                    conns[i] = (s, opened, b"")
                continue
            print(f"CLOSED {i} {time.monotonic() - opened:.2f}", flush=True)
            s.close()
            del conns[i]
        if time.monotonic() >= next_send:
            tick += 1
            piece = b"x" if body else f"X-Slow-{tick}: {tick}\r\n".encode()
            for i, (s, opened, seen) in list(conns.items()):
                try:
                    s.send(piece)
                except OSError:
                    pass  # the close is seen by the reader above
            next_send += interval
    print("ALL CLOSED", flush=True)


if __name__ == "__main__":
    main()
