"""Register words <-> values, written here from the Modbus conventions and docs/API.md, not from Lastset's code:
the harness's oracle must not share the code it checks.

A register is described by a plain dict, as the config writes it: {"registerId", "address", "type",
"wordOrder"?, "enum"?, "min"?, "max"?, "clone"?, "access"?}. Types used by the harness: u16 s16 u32 s32 f32
string(n) (n even)."""

from __future__ import annotations

import math
import struct


def length(reg: dict) -> int:
    """Registers (16-bit words) the register takes."""
    t = reg["type"]
    if t in ("u16", "s16"):
        return 1
    if t in ("u32", "s32", "f32"):
        return 2
    if t.startswith("string("):
        return (int(t[7:-1]) + 1) // 2
    raise ValueError(f"type {t} is not used by the harness")


def word_order(reg: dict) -> str:
    """The effective word order: only multi-register numbers have one."""
    if reg["type"] in ("u32", "s32", "f32"):
        return reg.get("wordOrder", "big")
    return "-"


def layout_key(reg: dict) -> tuple:
    """What the one admission decision compares: type (and so length), effective word order, "not set"."""
    return (reg["type"], word_order(reg), tuple(unset_patterns(reg)))


def _to_words(data: bytes, reg: dict) -> list[int]:
    words = [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]
    if word_order(reg) == "little":
        words.reverse()
    return words


def _from_words(words: list[int], reg: dict) -> bytes:
    w = list(words)
    if word_order(reg) == "little":
        w.reverse()
    return b"".join(x.to_bytes(2, "big") for x in w)


def encode(value, reg: dict) -> list[int]:
    """The words a value is written as."""
    t = reg["type"]
    if t == "u16":
        return [value & 0xFFFF]
    if t == "s16":
        return [value & 0xFFFF]
    if t == "u32":
        return _to_words((value & 0xFFFFFFFF).to_bytes(4, "big"), reg)
    if t == "s32":
        return _to_words((value & 0xFFFFFFFF).to_bytes(4, "big"), reg)
    if t == "f32":
        return _to_words(struct.pack(">f", value), reg)
    n = length(reg) * 2
    data = value.encode() if isinstance(value, str) else bytes(value)
    return _to_words(data[:n].ljust(n, b"\0"), reg)


def decode(words: list[int], reg: dict):
    """The JSON view of a register's words, as docs/API.md "JSON conventions" describes it."""
    t = reg["type"]
    data = _from_words(words, reg)
    if t == "u16" or t == "u32":
        return int.from_bytes(data, "big")
    if t == "s16" or t == "s32":
        return int.from_bytes(data, "big", signed=True)
    if t == "f32":
        v = struct.unpack(">f", data)[0]
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    text = data.split(b"\0", 1)[0]
    return text.decode("utf-8", errors="replace")


def unset_patterns(reg: dict) -> list[tuple]:
    """The words that mean "not set" (the type's maximum; for floats also all-0xFF; all-0xFF bytes for text)."""
    t = reg["type"]
    n = length(reg)
    if t == "u16":
        return [(0xFFFF,)]
    if t == "s16":
        return [(0x7FFF,)]
    if t == "u32":
        return [tuple(encode(0xFFFFFFFF, reg))]
    if t == "s32":
        return [tuple(encode(0x7FFFFFFF, reg))]
    if t == "f32":
        return [tuple(_to_words(bytes.fromhex("7F7FFFFF"), reg)), tuple([0xFFFF] * n)]
    return [tuple([0xFFFF] * n)]


def is_unset(words, reg: dict) -> bool:
    return tuple(words) in unset_patterns(reg)


def problem(words, reg: dict) -> str | None:
    """Why these words are not a valid value for the register (range, enum, finite, UTF-8), None when valid."""
    v = decode(list(words), reg)
    t = reg["type"]
    if t == "f32" and isinstance(v, str):
        return "not finite"
    if t.startswith("string("):
        raw = _from_words(list(words), reg).split(b"\0", 1)[0]
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return "not UTF-8"
        return None
    if "enum" in reg and v not in reg["enum"]:
        return f"not one of {reg['enum']}"
    if "min" in reg and v < reg["min"]:
        return f"below min {reg['min']}"
    if "max" in reg and v > reg["max"]:
        return f"above max {reg['max']}"
    return None


def hexwords(words) -> str:
    """Upper-case hex of the words, each high byte first (a `valueData`)."""
    return "".join(f"{w:04X}" for w in words)


def words_of_hex(text: str) -> tuple:
    return tuple(int(text[i:i + 4], 16) for i in range(0, len(text), 4))


def same_value(a, b) -> bool:
    """Two JSON register values are the same value (floats compared as f32 words would be)."""
    if isinstance(a, float) or isinstance(b, float):
        try:
            return struct.pack(">f", float(a)) == struct.pack(">f", float(b))
        except (TypeError, ValueError, OverflowError):
            return False
    return a == b
