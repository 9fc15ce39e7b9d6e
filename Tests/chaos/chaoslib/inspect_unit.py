"""What the trial harnesses (swaptrials.py, backuptrials.py) share: mbpoll as an independent client on the unit the
presses serve fault-free (`--fault-free-unit`), so the harness's own reads and writes are told from the daemon's
(unit 1) in a press's frame log; and the API's times as seconds."""

from __future__ import annotations

import datetime
import subprocess

from chaoslib.procs import HarnessError

INSPECT = 247


def mbpoll(port: int, address: int, count: int = 1, write: list[int] | None = None) -> list[int]:
    """Reads `count` holding registers from `address` (a list of words), or writes `write` there (an empty list)."""
    argv = ["mbpoll", "-m", "tcp", "-a", str(INSPECT), "-r", str(address + 1), "-t", "4"]
    argv += ["-c", str(count), "-1"] if write is None else []
    argv += ["127.0.0.1", "-p", str(port)] + [str(w) for w in write or []]
    run = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    if run.returncode != 0:
        raise HarnessError(f"{' '.join(argv)}: {run.stdout}{run.stderr}")
    if write is not None:
        return []
    return [int(line.split(":", 1)[1].split()[0]) & 0xFFFF for line in run.stdout.splitlines() if line.startswith("[")]


def iso(text: str) -> float:
    """An API time (ISO 8601, `Z`) as seconds since 1970."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
