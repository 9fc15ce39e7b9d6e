#!/usr/bin/env python3
"""A Modbus TCP server whose first replies carry the wrong transaction id.

usage: wrong_tid_server.py [--wrong N]

Answers FC03/FC04 with register value = its address; the first N replies (default 1) have the
transaction id of the request plus one (a late reply to another request, as a gateway can produce).
Prints "READY <port>" once listening on 127.0.0.1 and "WRONG <n>" for each such reply.
"""
import socket
import struct
import sys
import threading

wrong = int(sys.argv[sys.argv.index("--wrong") + 1]) if "--wrong" in sys.argv else 1
lock = threading.Lock()
sent = [0]


def read_exact(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def serve(conn):
    with conn:
        while True:
            head = read_exact(conn, 7)
            if head is None:
                return
            tid, proto, length, unit = struct.unpack(">HHHB", head)
            pdu = read_exact(conn, length - 1)
            if pdu is None:
                return
            function = pdu[0]
            if function in (3, 4):
                address, count = struct.unpack(">HH", pdu[1:5])
                body = bytes([function, 2 * count]) + b"".join(struct.pack(">H", address + i) for i in range(count))
            else:
                body = bytes([function | 0x80, 1])
            with lock:
                sent[0] += 1
                bad = sent[0] <= wrong
            if bad:
                print("WRONG %d" % sent[0], flush=True)
            reply_tid = (tid + 1) & 0xFFFF if bad else tid
            conn.sendall(struct.pack(">HHHB", reply_tid, 0, len(body) + 1, unit) + body)


def main():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    print("READY %d" % server.getsockname()[1], flush=True)
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
