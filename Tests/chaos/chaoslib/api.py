"""A small HTTP/1.1 client for lastsetd's API on its Unix socket (docs/API.md)."""

from __future__ import annotations

import http.client
import json
import socket
import urllib.parse


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.unix_path)
        self.sock = s


class Response:
    def __init__(self, status: int, body: bytes):
        self.status = status
        self.body = body

    def json(self):
        return json.loads(self.body) if self.body else None

    @property
    def code(self) -> str | None:
        """The error code of an error answer."""
        try:
            return self.json()["error"]["code"]
        except (ValueError, KeyError, TypeError):
            return None

    def __repr__(self):
        return f"HTTP {self.status} {self.body[:300]!r}"


class API:
    """Calls one daemon's API. Every call has a generous timeout: a loaded machine is slow, never wrong."""

    def __init__(self, socket_path: str, timeout: float = 120.0):
        self.socket_path = socket_path
        self.timeout = timeout

    def call(self, method: str, path: str, body=None, raw: bytes | None = None, timeout: float | None = None) -> Response:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        c = UnixHTTPConnection(self.socket_path, timeout or self.timeout)
        try:
            headers = {"Content-Type": "application/json"} if data is not None else {}
            c.request(method, path, body=data, headers=headers)
            r = c.getresponse()
            return Response(r.status, r.read())
        finally:
            c.close()

    def get(self, path: str) -> Response:
        return self.call("GET", path)

    def post(self, path: str, body=None, raw: bytes | None = None) -> Response:
        return self.call("POST", path, body=body if body is not None or raw is not None else {}, raw=raw)

    def delete(self, path: str) -> Response:
        return self.call("DELETE", path)

    @staticmethod
    def q(text: str) -> str:
        return urllib.parse.quote(text, safe="")
