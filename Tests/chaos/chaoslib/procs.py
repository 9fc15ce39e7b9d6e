"""The processes of a chaos run: simulated machines (lastset-sim, the pymodbus peer), lastsetd hosts and the
git hub. Every wait is on a readiness line or a condition, bounded by a generous deadline, never a sleep
that a loaded machine could outrun."""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import subprocess
import time

from .frames import FrameReader

DEADLINE = 60.0
INSPECT_UNIT = 247  # the harness's own reads: served without the machine's faults, and told apart in its log  # seconds: a loaded 2-core machine is slow, not wrong


_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


def die_with_harness():
    """preexec_fn of every child: SIGKILL when the harness dies, however it dies (no process outlives a run)."""
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class HarnessError(Exception):
    """The harness itself could not go on (a peer did not start): not a violation of Lastset's."""


def wait_until(condition, what: str, timeout: float = DEADLINE, interval: float = 0.01):
    end = time.monotonic() + timeout
    while True:
        v = condition()
        if v:
            return v
        if time.monotonic() > end:
            raise HarnessError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Machine:
    """One simulated machine on 127.0.0.1: its process, its frame log and its control channel."""

    def __init__(self, name: str, kind: str, workdir: str, bin_dir: str, python: str, repo: str):
        self.name = name
        self.kind = kind  # "sim" (lastset-sim) or "py" (pymodbus)
        self.dir = workdir
        self.log_path = os.path.join(workdir, f"{name}.frames")
        out_path = os.path.join(workdir, f"{name}.out")
        self.port = None
        if kind == "sim":
            cfg = os.path.join(workdir, f"{name}.sim.json")
            with open(cfg, "w") as f:
                json.dump({"version": 1, "devices": [], "pages": [
                    {"id": "blank", "registers": [{"registerId": "blank", "address": 65000, "type": "u16"}]}]}, f)
            argv = [os.path.join(bin_dir, "lastset-sim"), "--config", cfg, "--tcp", "127.0.0.1:0", "--log-frames", "--control",
                    "--fault-free-unit", str(INSPECT_UNIT)]
            self._out = open(self.log_path, "wb")
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=self._out, stderr=subprocess.STDOUT,
                                         preexec_fn=die_with_harness)
        else:
            argv = [python, os.path.join(repo, "Tests/peers/pymodbus_server.py"), "--tcp", "127.0.0.1:0", "--size", "4096",
                    "--frame-log", self.log_path, "--control", "--fault-free-unit", str(INSPECT_UNIT)]
            open(self.log_path, "wb").close()
            self._out = open(out_path, "wb")
            env = dict(os.environ, PYTHONUNBUFFERED="1")
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=self._out, stderr=subprocess.STDOUT, env=env,
                                         preexec_fn=die_with_harness)
        self.reader = FrameReader(self.log_path, kind)
        ready_file = self.log_path if kind == "sim" else out_path

        def ready():
            if self.proc.poll() is not None:
                raise HarnessError(f"{name} ({kind}) exited with {self.proc.returncode}: {open(ready_file).read()[-2000:]}")
            for line in open(ready_file, errors="replace"):
                if line.startswith("READY"):
                    return line.split()[-1].rsplit(":", 1)[-1]
            return None

        self.port = int(wait_until(ready, f"{name} READY"))

    def control(self, line: str):
        """Sends a control command and waits until the machine acknowledges it (then it is in force)."""
        start = len(self.reader.poll())
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

        def acked():
            for r in self.reader.controls_since(start):
                if r["kind"] == "control" and r["text"] == line:
                    return True
                if r["kind"] == "error" and r["text"].startswith(line):
                    raise HarnessError(f"{self.name} refused control {line!r}: {r['text']}")
            return False

        wait_until(acked, f"{self.name} to acknowledge {line!r}")

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"release\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._out.close()


class NotifySocket:
    """systemd's NOTIFY_SOCKET, to learn when a daemon is READY."""

    def __init__(self, path: str):
        self.path = path
        if os.path.exists(path):
            os.unlink(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.setblocking(False)

    def drain(self) -> list[str]:
        out = []
        while True:
            try:
                out.append(self.sock.recv(4096).decode(errors="replace"))
            except BlockingIOError:
                return out


class Daemon:
    """One lastsetd host with its own config, data directory and socket."""

    def __init__(self, name: str, workdir: str, bin_dir: str):
        self.name = name
        self.dir = os.path.join(workdir, name)
        os.makedirs(self.dir, exist_ok=True)
        self.bin_dir = bin_dir
        self.config_path = os.path.join(self.dir, "lastset.json")
        self.data_dir = os.path.join(self.dir, "data")
        self.socket_path = os.path.join(self.dir, "api.sock")
        self.log_path = os.path.join(self.dir, "lastsetd.log")
        self.notify = NotifySocket(os.path.join(self.dir, "notify.sock"))
        self.proc = None
        self.starts = 0

    def write_config(self, config: dict):
        tmp = self.config_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(config, f, indent=1)
        os.replace(tmp, self.config_path)

    def start(self):
        self.notify.drain()
        env = {k: v for k, v in os.environ.items() if k not in ("WATCHDOG_USEC", "JOURNAL_STREAM", "LISTEN_FDS")}
        env["NOTIFY_SOCKET"] = self.notify.path
        log = open(self.log_path, "ab")
        log.write(f"--- start {self.starts + 1}\n".encode())
        log.flush()
        self.proc = subprocess.Popen(
            [os.path.join(self.bin_dir, "lastsetd"), "--config", self.config_path, "--data-dir", self.data_dir,
             "--socket", self.socket_path, "--log-level", "info"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=env, preexec_fn=die_with_harness)
        log.close()
        self.starts += 1

        def ready():
            if self.proc.poll() is not None:
                raise HarnessError(f"lastsetd {self.name} exited with {self.proc.returncode}: {self.log_tail()}"
                                   f"{self.lock_holders()}")
            return any("READY=1" in d.split("\n") for d in self.notify.drain())

        wait_until(ready, f"lastsetd {self.name} READY=1")

    def kill(self):
        """SIGKILL, as a power cut or the OOM killer would."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def lock_holders(self) -> str:
        """Which processes have the data directory's lock file open (a start refused as "in use")."""
        lock = os.path.realpath(os.path.join(self.data_dir, "lastsetd.lock"))
        out = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            for fd in fds:
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == lock:
                        with open(f"/proc/{pid}/stat") as f:
                            stat = f.read()
                        with open(f"/proc/{pid}/cmdline", "rb") as f:
                            cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
                        out.append(f"pid {pid} fd {fd} stat {stat[:120]!r} cmdline {cmd[:200]!r}")
                except OSError:
                    continue
        return "\nprocesses holding the lock file open: " + ("; ".join(out) if out else "none")

    def log_tail(self, n: int = 4000) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return ""


class Hub:
    """A bare git repository served by `git daemon` on 127.0.0.1 (push enabled), as the fleet tests do."""

    ENV = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {
        "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}

    def __init__(self, workdir: str):
        self.root = os.path.join(workdir, "hub")
        os.makedirs(self.root, exist_ok=True)
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", os.path.join(self.root, "hub.git")],
                       check=True, env=self.ENV)
        self.log_path = os.path.join(self.root, "daemon.log")
        # A free port is picked, then bound by git daemon: another program may take it in between; then
        # git daemon exits and another port is tried.
        for attempt in range(5):
            self.port = free_port()
            log = open(self.log_path, "wb")
            self.proc = subprocess.Popen(
                ["git", "daemon", "--reuseaddr", "--listen=127.0.0.1", f"--port={self.port}", f"--base-path={self.root}",
                 "--export-all", "--enable=receive-pack", "--informative-errors", "--verbose"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=self.ENV, preexec_fn=die_with_harness)
            log.close()

            def ready():
                if "Ready to rumble" in open(self.log_path, errors="replace").read():
                    return "ready"
                return "exited" if self.proc.poll() is not None else None

            if wait_until(ready, "git daemon ready") == "ready":
                return
        raise HarnessError(f"git daemon did not start on 5 free ports: {open(self.log_path, errors='replace').read()[-1000:]}")

    @property
    def url(self) -> str:
        return f"git://127.0.0.1:{self.port}/hub.git"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
