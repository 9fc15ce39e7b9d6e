"""The invariants, checked after every step from the machines' own logs and mbpoll reads:

(a) every write frame belongs to a job that targeted that machine and carries only that job's template
    words in page order, its steps, or its rollback of registers it changed (replaycheck.py);
(b) nothing is written past the window of a mismatch or a rejection under stop (and rollback), and the
    commit (afterWrite) runs only after full verification (replaycheck.py);
(c) each job's report and audit record match the frames logged and what the machine holds;
(d) applied state, marks, rollout and conformance agree with the machines;
(e) nothing acknowledged as archived is lost across kills (versions, their content, audit records)."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import re
from datetime import datetime, timezone

from . import codec, model
from .frames import describe, is_write
from .replaycheck import PageExpect, check_frames
from .world import Violation


def version_id(t: dict) -> str:
    return f"{t['host']}-{t['version']}" if t.get("host") else str(t["version"])


def version_from_api(t: dict, origin: str, order: float) -> model.Version:
    entries = []
    for e in t["entries"]:
        lay = e.get("layout") or {}
        reg = {"type": lay.get("type", "?")}
        if "wordOrder" in lay:
            reg["wordOrder"] = lay["wordOrder"]
        entries.append({"registerId": e["registerId"], "address": e["address"], "words": codec.words_of_hex(e["valueData"]),
                        "layout": _layout_of_api(lay), "value": e.get("value")})
    skipped = {x["registerId"]: x["reason"] for x in t.get("skipped", [])}
    identity = ()
    for i in t["source"].get("identity", []):
        identity += codec.words_of_hex(i["valueData"])
    return model.Version(version_id(t), t["pageId"], entries, skipped, identity, {}, t.get("host") or "", order, origin)


def _layout_of_api(lay: dict) -> tuple:
    t = lay.get("type", "?")
    reg = {"type": t}
    if "wordOrder" in lay:
        reg["wordOrder"] = lay["wordOrder"]
    try:
        order = codec.word_order(reg)
    except Exception:
        order = "?"
    return (t, order, tuple(codec.words_of_hex(u) for u in lay.get("unset", [])))


def same_content(expected: model.Version, got: model.Version, what: str):
    """The archived template holds what the source held (entries' ids, addresses and words, skipped, identity)."""
    e = [(x["registerId"], x["address"], tuple(x["words"])) for x in expected.entries]
    g = [(x["registerId"], x["address"], tuple(x["words"])) for x in got.entries]
    if e != g:
        diff = [f"{a} vs {b}" for a, b in zip(e, g) if a != b][:4]
        raise Violation("c", f"{what}: entries differ from what the source held: expected {len(e)}, archived {len(g)}; "
                             f"{'; '.join(diff) or 'different registers'}")
    if expected.skipped and expected.skipped != got.skipped:
        raise Violation("c", f"{what}: skipped {got.skipped}, expected {expected.skipped}")
    if tuple(expected.identity) != tuple(got.identity):
        raise Violation("c", f"{what}: identity {got.identity}, expected {expected.identity}")
    for x, y in zip(expected.entries, got.entries):
        if "layout" in x and x["layout"][:2] != y["layout"][:2]:
            raise Violation("c", f"{what}: {x['registerId']} layout {y['layout'][:2]}, captured against {x['layout'][:2]}")


def iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(t * 1000) % 1000:03d}Z"


def audit_of(runner, host: str, job: str) -> list[dict]:
    """The records of one audit job id (an intent and its completion share it)."""
    r = runner.w.api[host].get(f"/v1/audit?job={job}&limit=50")
    if r.status != 200:
        raise Violation("c", f"audit of job {job} answered {r}")
    return [x for x in r.json()["records"] if x.get("job") == job]


def audit_window(runner, host: str, page: str, t0: float, t1: float | None, kinds) -> list[dict]:
    """The records of `kinds` for `page` written while a request ran (steps never overlap)."""
    q = f"/v1/audit?page={page}&kind={','.join(kinds)}&since={iso(t0 - 0.002)}&limit=200"
    if t1 is not None:
        q += f"&until={iso(t1 + 0.002)}"
    r = runner.w.api[host].get(q)
    if r.status != 200:
        raise Violation("c", f"{q} answered {r}")
    return r.json()["records"]


def read_fault(w, machine: str, page: dict) -> bool:
    """Whether the machine refuses reads somewhere a capture or a replay of this page reads."""
    ex = w.faults[machine].get("exceptions", {})
    if not ex:
        return False
    lo = min(r["address"] for r in page["registers"])
    hi = max(r["address"] + codec.length(r) for r in page["registers"])
    return any(0 <= a < 4 or lo - 130 <= a < hi + 130 for a in ex)


def write_fault(w, machine: str, admitted: list[dict], page: dict, write_function: str) -> bool:
    """Whether a fault may make this replay fail (an exception or a clamp where it writes, FC16 refused to a
    device whose writeFunction allows no FC06 fallback)."""
    f = w.faults[machine]
    if f.get("refuse_fc16") and write_function == "fc16" and admitted:
        return True
    addrs = {e["address"] + i for e in admitted for i in range(len(e["words"]))}
    addrs |= {s["address"] for s in page.get("beforeWrite", []) + page.get("afterWrite", [])}
    if any(a in addrs for a in f.get("exceptions", {})):
        return True
    for e in admitted:
        for i, word in enumerate(e["words"]):
            limit = f.get("clamps", {}).get(e["address"] + i)
            if limit is not None and word > limit:
                return True
    return False


# ---------------------------------------------------------------- captures


def check_capture(runner, run, host: str, d, page_id: str):
    w = runner.w
    page = w.cfg[host].pages()[page_id]
    pre = run.pre[d.machine]
    entries, skipped, problems, identity = model.capture_of(page, pre)
    if run.resp.status != 200:
        if run.resp.status == 409 and run.resp.code == "device_busy":
            raise Violation("c", f"capture on an idle machine answered {run.resp}")
        raise Violation("c", f"capture of {page_id} from {d.id} answered {run.resp}")
    info = run.info
    cap = info.get("capture")
    if cap is None:
        raise Violation("c", f"capture job without a report: {info}")
    job = info["id"]
    faulty = read_fault(w, d.machine, page)
    expected = model.Version("?", page_id, entries, skipped, identity, page, w.cfg[host].host, run.t1, "capture")
    audit = [a for a in audit_window(runner, host, page_id, run.t0, run.t1, ["capture"]) if a["result"] != "started"]
    if len(audit) != 1:
        raise Violation("c", f"capture job {job}: {len(audit)} completed audit records ({[a['result'] for a in audit]})")
    results = [a["result"] for a in audit]
    job = audit[0].get("job", job)
    if faulty:
        if cap.get("archived") and not cap.get("unchanged"):
            vid = cap["versionId"]
            _record_capture(runner, host, page_id, vid, expected, run)
        return
    if problems:
        if cap.get("archived"):
            raise Violation("c", f"capture of {page_id} from {d.id} archived {cap.get('versionId')} although "
                                 f"{problems} are invalid")
        got = sorted(p["registerId"] for p in cap.get("problems", []))
        want = sorted(p.split(":")[0] for p in problems)
        if got != want:
            raise Violation("c", f"capture of {page_id}: problems {got}, the machine holds invalid {want}")
        if "invalid" not in results:
            raise Violation("c", f"capture job {job} (invalid) audited as {results}")
        w.acknowledged_jobs.append((host, job, "invalid"))
        return
    latest = runner.latest(page_id, host=host)
    if latest is not None and latest.content_key() == expected.content_key():
        if not cap.get("unchanged") or cap.get("versionId") != latest.id:
            raise Violation("c", f"capture of {page_id} from {d.id}: the machine holds exactly {latest.id}, "
                                 f"the capture answered {json.dumps(cap)[:400]}")
        if "unchanged" not in results:
            raise Violation("c", f"capture job {job} (unchanged) audited as {results}")
        w.acknowledged_jobs.append((host, job, "unchanged"))
        return
    if not cap.get("archived") or cap.get("unchanged"):
        raise Violation("c", f"capture of {page_id} from {d.id}: the machine holds valid new values "
                             f"(latest {latest.id if latest else 'none'}), the capture answered {json.dumps(cap)[:600]}")
    if "archived" not in results:
        raise Violation("c", f"capture job {job} (archived) audited as {results}")
    w.acknowledged_jobs.append((host, job, "archived"))
    _record_capture(runner, host, page_id, cap["versionId"], expected, run)


def _record_capture(runner, host, page_id, vid, expected, run):
    w = runner.w
    if host == "A":
        if vid in w.versions[page_id]:
            raise Violation("e", f"capture archived {page_id} as {vid}, an id already given")
        runner.adopt(page_id, vid, "capture", expected, run.t1)
    else:
        got = w.api["B"].get(f"/v1/pages/{page_id}/templates/{vid}")
        if got.status != 200:
            raise Violation("e", f"B: {page_id} {vid} acknowledged, cannot be read: {got}")
        v = version_from_api(got.json(), "fleet", run.t1)
        same_content(expected, v, f"B: {page_id} {vid}")
        v.page_def = expected.page_def
        w.b_versions[page_id][vid] = v


# ---------------------------------------------------------------- replays


def replay_expectation(runner, target, page_id: str, version_ref: str | None, on_error: str, pending_ok: bool,
                       warnings=()) -> dict:
    """What a replay to `target` should do, before its answer is looked at."""
    w = runner.w
    page = w.cfg["A"].pages()[page_id]
    if version_ref is not None:
        v = runner.version_ref(page_id, version_ref)
        if v is not None and v.deleted:
            v = None
        missing = "unknown_version"
    else:
        hub_unused = any("hub not used" in x for x in warnings)
        v = runner.latest(page_id, pending=pending_ok and not hub_unused)
        missing = "no_template"
    out = {"page": page, "version": v, "missing": missing if v is None else None}
    if v is None:
        return out
    admitted, left_out, refused = model.admission(v, page, local_host=w.cfg["A"].host)
    out.update(admitted=admitted, left_out=left_out, refused=refused,
               identity_ok=tuple(v.identity) == w.identity(target.machine),
               read_fault=read_fault(w, target.machine, page), write_fault=write_fault(w, target.machine, admitted, page, target.write_function))
    return out


def page_expect(runner, target, exp: dict, on_error: str, pre: dict) -> PageExpect:
    return PageExpect(exp["page"], exp["admitted"], on_error, target.max_write, target.write_function, pre, target.unit,
                      exp["version"].id)


def check_replay(runner, run, target, page_id: str, version_ref, on_error: str, dry: bool, diff: bool = False,
                 pinned: str | None = None):
    w = runner.w
    w.stats["dryRuns" if dry else "replays"] += 1
    # Frames on any other machine than the target's: none, whatever happened.
    runner.no_writes(run, f"a replay to {target.label} ({target.machine})", except_machine=target.machine)
    if run.resp.status not in (200, 202):
        exp = replay_expectation(runner, target, page_id, version_ref, on_error, pending_ok=True)
        runner.no_writes(run, f"a replay answered {run.resp.status}")
        if exp["version"] is None and run.resp.status == 404 and run.resp.code == exp["missing"]:
            return
        if exp["version"] is not None and version_ref is None and run.resp.status == 404 and run.resp.code == "no_template":
            raise Violation("c", f"apply {page_id}: no_template while {exp['version'].id} is archived")
        raise Violation("c", f"apply {page_id} to {target.label} answered {run.resp} "
                             f"(expected version {exp['version'].id if exp['version'] else exp['missing']})")
    report = run.resp.json() if diff else run.info.get("replay")
    if report is None:
        raise Violation("c", f"apply {page_id} to {target.label}: finished without a report: {run.info}")
    exp = replay_expectation(runner, target, page_id, version_ref, on_error, pending_ok=True,
                             warnings=report.get("warnings", []))
    v = exp["version"]
    if v is None:
        raise Violation("c", f"apply {page_id}: replayed {report.get('templateVersionId')}, the harness knows no "
                             f"version to replay ({exp['missing']})")
    vid = report.get("templateVersionId")
    if vid != v.id:
        alt = runner.version_ref(page_id, vid) if vid else None
        if not (version_ref is None and alt is not None and alt.order >= runner.latest(page_id).order):
            raise Violation("c", f"apply {page_id} to {target.label} replayed {vid}, expected {v.id} "
                                 f"({'requested' if version_ref else 'the latest'})")
        v = alt
        exp = replay_expectation(runner, target, page_id, vid, on_error, pending_ok=True)
    if pinned and vid != pinned:
        raise Violation("c", f"apply {page_id} pinned to {pinned} replayed {vid}")
    check_one_replay(runner, run, target, exp, report, on_error, dry, job=True)


def check_one_replay(runner, run, target, exp: dict, report: dict, on_error: str, dry: bool, job: str | None,
                     frames=None, summary=None):
    """(a), (b), (c) for one page's replay report against the target machine's frames and contents."""
    w = runner.w
    page_id = exp["page"]["id"]
    v = exp["version"]
    machine = target.machine
    pre = run.pre[machine]
    records = frames if frames is not None else run.frames.get(machine, [])
    writes = [r for r in records if is_write(r)]
    status = report.get("status")
    what = f"apply {page_id} {v.id} to {target.label} ({machine})"
    w.log(f"  → {page_id} {v.id}: {status} ({len(writes)} write frames) {report.get('reason') or ''} "
          f"{report.get('stoppedAt') or ''}".rstrip())
    # Refusals the harness can foresee: nothing written, and refused.
    if exp["refused"] or not exp["identity_ok"]:
        why = exp["refused"] or ["identity differs"]
        if status != "refused":
            raise Violation("c", f"{what}: the template does not fit ({'; '.join(why)}), status {status}")
        if writes:
            raise Violation("a", f"{what}: refused ({'; '.join(why)}) yet wrote — {describe(writes[0])}")
        return _check_audit(runner, run, job, what, report, status, writes, target, v, exp, pre, None) if job else None
    if dry:
        if writes:
            raise Violation("a", f"{what}: a dry run wrote — {describe(writes[0])}")
        if status != "planned":
            if status == "refused" and exp["read_fault"]:
                return
            raise Violation("c", f"{what}: dry run ended {status}: {report.get('reason')}")
        # What the dry run read: every word of a register answered by a read of the target's unit, or the
        # register is unread (a read refused with an exception) and its line says notAttempted, no actual.
        read = {r["address"] + k for r in records if r["kind"] == "frame" and r["fc"] in (3, 4)
                and r["exception"] is None and r["unit"] == target.unit for k in range(r["count"])}
        for line, e in zip(report["registers"], exp["admitted"]):
            now = tuple(pre[e["address"] + i] for i in range(len(e["words"])))
            if not all(e["address"] + i in read for i in range(len(e["words"]))):
                if line["status"] != "notAttempted" or "actualData" in line:
                    raise Violation("c", f"{what}: dry run says {line['registerId']} {line['status']} "
                                         f"{line.get('actualData', '')}, the machine answered no read of all its words")
                continue
            want = "unchanged" if now == tuple(e["words"]) else "differs"
            if line["status"] != want:
                raise Violation("c", f"{what}: dry run says {line['registerId']} {line['status']}, the machine holds "
                                     f"{codec.hexwords(now)} against {codec.hexwords(e['words'])}")
        _check_lines(what, report, exp)
        if job:
            _check_audit(runner, run, job, what, report, status, writes, target, v, exp, pre, None)
        read_all = all("actualData" in x for x in report["registers"])
        key = (target.device.id, page_id) if target.device else None
        if key and read_all and w.truth.get(key, ("none",))[0] in ("unverified", "partial"):
            w.truth[key] = ("cleared", target.machine)
        return
    if status == "refused":
        if writes:
            raise Violation("a", f"{what}: refused yet wrote — {describe(writes[0])}")
        if not exp["read_fault"]:
            raise Violation("c", f"{what}: refused with nothing the harness can see against it: {report.get('reason')}")
        return
    pexp = page_expect(runner, target, exp, on_error, pre)
    if summary is None:
        violations, summaries = check_frames(records, [pexp])
        if violations:
            raise Violation("b" if "window" in violations[0] or "afterWrite" in violations[0] else "a",
                            f"{what} onError {on_error}: " + "; ".join(violations[:3]))
        summary = summaries[0]
    post = w.content[machine]
    _check_lines(what, report, exp)
    if report.get("writeFrames") != len(writes):
        raise Violation("c", f"{what}: report says {report.get('writeFrames')} write frames, the machine logged {len(writes)}")
    after_words = lambda e: tuple(post[e["address"] + i] for i in range(len(e["words"])))
    holds_all = all(after_words(e) == tuple(e["words"]) for e in exp["admitted"])
    steps_ok = summary["before_done"] and len(summary["after_sent"]) == len(pexp.after) and \
        all(x[2] is None for x in summary["after_sent"])
    if status == "succeeded":
        if not (holds_all and steps_ok and summary["fully_acked"] >= {e["registerId"] for e in exp["admitted"]}):
            missing = [e["registerId"] for e in exp["admitted"] if after_words(e) != tuple(e["words"])]
            raise Violation("c", f"{what}: succeeded, but the machine does not hold {missing[:5]} or a step is missing "
                                 f"(after {summary['after_sent']}, before done {summary['before_done']})")
    elif not exp["write_fault"] and not w.faults[machine].get("max_read") and not exp["read_fault"]:
        raise Violation("c", f"{what}: {status} ({report.get('reason')}; stopped {report.get('stoppedAt')}) on a machine "
                             f"with no fault where it writes ({w.faults[machine] or 'none'})")
    rollback = report.get("rollback")
    for line, e in zip(report["registers"], exp["admitted"]):
        rid = e["registerId"]
        st = line["status"]
        if st == "verified" and rid not in summary["verified"]:
            raise Violation("c", f"{what}: {rid} reported verified, the machine never answered a read of it equal "
                                 f"to {codec.hexwords(e['words'])} after its write")
        if st == "verified" and not rollback and after_words(e) != tuple(e["words"]):
            raise Violation("c", f"{what}: {rid} reported verified, the machine holds {codec.hexwords(after_words(e))}")
        if st == "notAttempted" and rid in summary["acked"]:
            raise Violation("c", f"{what}: {rid} reported notAttempted, the machine took a write of it")
        if st == "rejected":
            if rid not in summary["rejected"]:
                raise Violation("c", f"{what}: {rid} reported rejected, no write of it was refused by the machine")
            if line.get("exceptionCode") != summary["rejected"][rid]:
                raise Violation("c", f"{what}: {rid} rejected with {line.get('exceptionCode')}, the machine answered "
                                     f"{summary['rejected'][rid]}")
        if st == "mismatch":
            got = summary["readback"].get(rid)
            if got is None or got == tuple(e["words"]) or line.get("actualData") != codec.hexwords(got):
                raise Violation("c", f"{what}: {rid} mismatch with actual {line.get('actualData')}, the machine answered "
                                     f"{codec.hexwords(got) if got else 'no read after the write'}")
        if "before" in line:
            reg = e["reg"]
            was = [pre[e["address"] + i] for i in range(len(e["words"]))]
            if not codec.same_value(line["before"], codec.decode(was, reg)) and not reg["type"].startswith("string"):
                raise Violation("c", f"{what}: {rid} before {line['before']}, the machine held {codec.decode(was, reg)}")
    touched = summary["touched"]
    if on_error == "rollback" and status == "failed" and touched:
        if not rollback:
            raise Violation("c", f"{what}: failed under onError rollback after writing {sorted(touched)[:5]}, no rollback")
        ids = {x["registerId"] for x in rollback["registers"]}
        if ids != touched:
            raise Violation("c", f"{what}: rollback covers {sorted(ids)}, the machine took writes of {sorted(touched)}")
        by_id = {e["registerId"]: e for e in exp["admitted"]}
        all_back = True
        for x in rollback["registers"]:
            e = by_id[x["registerId"]]
            was = tuple(pre[e["address"] + i] for i in range(len(e["words"])))
            if x.get("expectedData") != codec.hexwords(was):
                raise Violation("c", f"{what}: rollback restores {x['registerId']} to {x.get('expectedData')}, "
                                     f"the machine held {codec.hexwords(was)}")
            back = after_words(e) == was
            all_back &= back
            if (x["status"] == "verified") != back:
                raise Violation("c", f"{what}: rollback says {x['registerId']} {x['status']}, the machine holds "
                                     f"{codec.hexwords(after_words(e))} (it held {codec.hexwords(was)})")
        if rollback.get("restored") != all_back:
            raise Violation("c", f"{what}: rollback restored={rollback.get('restored')}, the machine says {all_back}")
    elif rollback and on_error != "rollback":
        raise Violation("c", f"{what}: a rollback under onError {on_error}")
    if job:
        _check_audit(runner, run, job, what, report, status, writes, target, v, exp, pre, summary)
    _update_truth(runner, target, page_id, v, exp, status, summary, holds_all and steps_ok, pre, rollback)


def _check_lines(what: str, report: dict, exp: dict):
    ids = [x["registerId"] for x in report["registers"]]
    want = [e["registerId"] for e in exp["admitted"]]
    if ids != want:
        raise Violation("c", f"{what}: report lines {ids}, the admitted entries in page order are {want}")
    for line, e in zip(report["registers"], exp["admitted"]):
        if line["expectedData"] != codec.hexwords(e["words"]):
            raise Violation("c", f"{what}: {e['registerId']} EXPECTED {line['expectedData']}, the template holds "
                                 f"{codec.hexwords(e['words'])}")
        if not codec.same_value(line["expected"], codec.decode(list(e["words"]), e["reg"])):
            raise Violation("c", f"{what}: {e['registerId']} expected value {line['expected']} is not what "
                                 f"{line['expectedData']} holds under the page ({codec.decode(list(e['words']), e['reg'])})")


def _check_audit(runner, run, job, what, report, status, writes, target, v, exp, pre, summary, records=None):
    w = runner.w
    # The job's own kind only: a dry run answered a millisecond before this apply began (a pinned apply) falls
    # inside the window's clock slack, and is another job's record.
    dry = bool((report or {}).get("options", {}).get("dryRun"))
    recs = records if records is not None else audit_window(runner, "A", exp["page"]["id"], run.t0, run.t1,
                                                            ["dry-run"] if dry else ["replay"])
    done = [r for r in recs if r["result"] != "started"]
    if len(done) != 1:
        raise Violation("c", f"{what}: job {job} has {len(done)} completed audit records ({[r['result'] for r in recs]})")
    a = done[0]
    if a["result"] != status:
        raise Violation("c", f"{what}: audit result {a['result']}, report {status}")
    if a.get("templateVersionId") not in (None, v.id):
        raise Violation("c", f"{what}: audit names version {a.get('templateVersionId')}")
    if target.device is not None and a.get("device") != target.device.id:
        raise Violation("d", f"{what}: audited under device {a.get('device')}, the target is {target.device.id}")
    if status not in ("planned", "refused") and a.get("writeFrames") != len(writes):
        raise Violation("c", f"{what}: audit says {a.get('writeFrames')} write frames, the machine logged {len(writes)}")
    by_id = {e["registerId"]: e for e in exp["admitted"]}
    post = w.content[target.machine]
    for r in a.get("registers", []):
        e = by_id.get(r["registerId"])
        if e is None:
            continue
        if "written" in r and not codec.same_value(r["written"], codec.decode(list(e["words"]), e["reg"])):
            raise Violation("c", f"{what}: audit WRITTEN {r['registerId']} = {r['written']}, the words sent hold "
                                 f"{codec.decode(list(e['words']), e['reg'])}")
        if "after" in r and not e["reg"]["type"].startswith("string"):
            now = [post[e["address"] + i] for i in range(len(e["words"]))]
            if not codec.same_value(r["after"], codec.decode(now, e["reg"])):
                raise Violation("c", f"{what}: audit AFTER {r['registerId']} = {r['after']}, the machine holds "
                                     f"{codec.decode(now, e['reg'])}")
    if a.get("job"):
        w.acknowledged_jobs.append(("A", a["job"], status))


def _update_truth(runner, target, page_id, v, exp, status, summary, holds_all, pre, rollback):
    w = runner.w
    d = target.device
    if d is None:
        # A machine that is no configured device: lastsetd keeps its state under the endpoint as spelt
        # (reported: it is shown nowhere, yet holds the version against a delete).
        if status == "succeeded":
            w.last_applied[(f"{target.body['endpoint']} unit {target.unit}", page_id)] = v.id
        return
    key = (d.id, page_id)
    written = {e["registerId"]: tuple(e["words"]) for e in exp["admitted"]}
    if status == "succeeded" and holds_all:
        w.truth[key] = ("applied", v.id, d.machine, written)
        w.last_applied[key] = v.id
        return
    if status == "failed" and summary["touched"]:
        # A failed replay whose frames changed registers leaves the page partially written, holding no
        # version, unless a rollback put every one of them back (as the machine shows).
        post = w.content[d.machine]
        restored = rollback is not None and all(tuple(post[e["address"] + i] for i in range(len(e["words"]))) ==
                       tuple(pre[e["address"] + i] for i in range(len(e["words"])))
                       for e in exp["admitted"] if e["registerId"] in summary["touched"])
        if not restored:
            w.truth[key] = ("partial", d.machine, w.truth.get(key))


# ---------------------------------------------------------------- whole machine


def check_applyall(runner, run, d, on_error: str, policy: str, dry: bool):
    w = runner.w
    target_cls = type("T", (), {})
    from .steps import Target
    target = Target(d.machine, d.unit, d, {"device": d.id}, d.id)
    runner.no_writes(run, f"apply every page of {d.id}", except_machine=d.machine)
    if run.resp.status != 200:
        pins = (run.body or {}).get("expectVersions") or {}
        if run.resp.status == 409 and run.resp.code == "version_changed":
            moved = [p for p, vid in pins.items() if runner.latest(p) is None or runner.latest(p).id != vid]
            if not moved:
                raise Violation("c", f"apply every page of {d.id}: version_changed while every pin {pins} is the latest")
            runner.no_writes(run, "a refused whole-machine apply")
            return
        raise Violation("c", f"apply every page of {d.id} answered {run.resp}")
    rep = run.info.get("applyAll")
    if rep is None:
        raise Violation("c", f"apply every page of {d.id}: no applyAll report: {run.info}")
    pages = rep["pages"]
    if [p["pageId"] for p in pages] != d.pages:
        raise Violation("c", f"apply every page of {d.id}: pages {[p['pageId'] for p in pages]}, config order {d.pages}")
    records = run.frames.get(d.machine, [])
    exps, pexps, ran = [], [], []
    stopped = False
    for p in pages:
        exp = replay_expectation(runner, target, p["pageId"], None, on_error, pending_ok=False)
        if stopped:
            if p["status"] != "notAttempted":
                raise Violation("c", f"apply every page of {d.id}: page {p['pageId']} {p['status']} after the job stopped")
            continue
        if exp["version"] is None:
            if p["status"] != "noTemplate":
                raise Violation("c", f"apply every page of {d.id}: {p['pageId']} has no template, status {p['status']}")
        else:
            if p.get("versionId") != exp["version"].id:
                alt = runner.version_ref(p["pageId"], p.get("versionId") or "")
                if alt is None:
                    raise Violation("c", f"apply every page of {d.id}: {p['pageId']} replayed {p.get('versionId')}, "
                                         f"the latest is {exp['version'].id}")
                exp = replay_expectation(runner, target, p["pageId"], alt.id, on_error, pending_ok=False)
            if p.get("report") is None:
                raise Violation("c", f"apply every page of {d.id}: {p['pageId']} has no report")
            exps.append((p, exp))
            if not (exp["refused"] or not exp["identity_ok"]):
                pexps.append(page_expect(runner, target, exp, on_error, run.pre[d.machine]))
                ran.append(len(exps) - 1)
        ok = p["status"] in (("planned",) if dry else ("succeeded",))
        if not ok and policy == "stop":
            stopped = True
    violations, summaries = check_frames(records, pexps) if pexps else ([], [])
    if violations:
        raise Violation("b" if "window" in violations[0] or "afterWrite" in violations[0] else "a",
                        f"apply every page of {d.id} onError {on_error}: " + "; ".join(violations[:3]))
    if not pexps and any(is_write(r) for r in records):
        raise Violation("a", f"apply every page of {d.id}: no page could write, yet {describe(next(r for r in records if is_write(r)))}")
    for k, (p, exp) in enumerate(exps):
        summary = summaries[ran.index(k)] if k in ran else None
        page_records = [r for r in records if not is_write(r) or pexps[ran.index(k)].owns(r["address"])] if k in ran else []
        check_one_replay(runner, run, target, exp, p["report"], on_error, dry, job="applyall", frames=page_records,
                         summary=summary)


# ---------------------------------------------------------------- interrupted replays


def interrupted_version(runner, run, exp):
    return exp.get("version")


def check_killed_replay(runner, run, target, page_id, on_error, version):
    """(a)/(b) for the frames a replay sent before it was killed."""
    w = runner.w
    runner.no_writes(run, f"a replay to {target.label}", except_machine=target.machine)
    exp = replay_expectation(runner, target, page_id, version.id if version else None, on_error, pending_ok=True)
    records = run.frames.get(target.machine, [])
    if exp["version"] is None or exp["refused"] or not exp["identity_ok"]:
        if any(is_write(r) for r in records):
            raise Violation("a", f"killed replay of {page_id} to {target.label} should have written nothing")
        return
    pexp = page_expect(runner, target, exp, on_error, run.pre[target.machine])
    violations, summaries = check_frames(records, [pexp])
    if violations:
        raise Violation("a", f"killed replay of {page_id} to {target.label}: " + "; ".join(violations[:3]))
    run.summary = summaries[0]
    run.expect = exp


# ---------------------------------------------------------------- state (d)


def check_state(runner, step):
    w = runner.w
    api = w.api["A"]
    devices = {d["id"]: d for d in api.get("/v1/devices").json()}
    cfg = w.cfg["A"]
    if sorted(devices) != sorted(d.id for d in cfg.devices):
        raise Violation("d", f"devices {sorted(devices)}, the config has {sorted(d.id for d in cfg.devices)}")
    for d in cfg.devices:
        st = devices[d.id]
        applied = st.get("applied") or {}
        marks = {m["pageId"] for m in st.get("unverified") or []}
        for p in d.pages:
            truth = w.truth.get((d.id, p), ("none",))
            have = applied.get(p, {}).get("versionId")
            if truth[0] == "applied" and truth[2] == d.machine:
                if have != truth[1] or p in marks:
                    raise Violation("d", f"{d.id} {p}: the machine took {truth[1]} (every entry verified), the daemon "
                                         f"records {have or 'nothing'}{' and an unverified mark' if p in marks else ''}")
            elif truth[0] == "unverified":
                if p not in marks:
                    raise Violation("d", f"{d.id} {p}: a replay was killed after writing, no unverified mark "
                                         f"(applied {have})")
            elif truth[0] == "partial" and truth[1] == d.machine:
                if p not in marks or have is not None:
                    raise Violation("d", f"{d.id} {p}: a failed replay changed registers and no rollback restored them; "
                                         f"the daemon records {have or 'no version'}"
                                         f"{' with a partial mark' if p in marks else ' and no partial mark'}")
            elif truth[0] == "cleared":
                if p in marks:
                    raise Violation("d", f"{d.id} {p}: a dry run read every entry of the page, the unverified mark stays")
            elif truth[0] == "none":
                if have is not None or p in marks:
                    raise Violation("d", f"{d.id} {p}: nothing was ever applied here, the daemon records "
                                         f"{have}{' (unverified)' if p in marks else ''}")
    # Rollout: each device's standing follows from the record, and "latest" from the machine too.
    for p in model.PAGE_ORDER:
        ro = api.get(f"/v1/pages/{p}/rollout").json()
        latest = runner.latest(p)
        if (ro.get("latestVersion") or None) != (latest.id if latest else None):
            pending = runner.latest(p, pending=True)
            if not (pending and ro.get("latestVersion") == pending.id):
                raise Violation("e", f"rollout of {p}: latest {ro.get('latestVersion')}, the archive's latest is "
                                     f"{latest.id if latest else None}")
            # B's version, on the hub, fetched by a replay of the latest before this step's archive check
            # adopts it: the latest for the standings too (chaos seed 11 was a false violation).
            latest = pending
        for x in ro["devices"]:
            truth = w.truth.get((x["device"], p), ("none",))
            dev = cfg.device(x["device"])
            if x["standing"] == "latest":
                if truth[0] == "applied" and dev and truth[2] == dev.machine and latest and truth[1] != latest.id:
                    raise Violation("d", f"rollout of {p}: {x['device']} stands latest ({ro.get('latestVersion')}), "
                                         f"the machine took {truth[1]}")
                if truth[0] in ("unverified", "none"):
                    raise Violation("d", f"rollout of {p}: {x['device']} stands latest, the machine {truth[0]}")
            if x["standing"] == "neverApplied" and truth[0] == "applied":
                raise Violation("d", f"rollout of {p}: {x['device']} never applied, the machine took {truth[1]}")
            if x["standing"] == "unverified" and truth[0] not in ("unverified", "unknown"):
                raise Violation("d", f"rollout of {p}: {x['device']} unverified, the machine {truth[0]}")
            if x["standing"] == "partiallyWritten" and truth[0] not in ("partial", "unknown"):
                raise Violation("d", f"rollout of {p}: {x['device']} partially written, the machine {truth[0]}")
            if truth[0] == "partial" and dev and truth[1] == dev.machine and x["standing"] != "partiallyWritten":
                raise Violation("d", f"rollout of {p}: {x['device']} stands {x['standing']}, a failed replay left it "
                                     f"partially written")
    # Conformance of polled devices: the verdict must be what the machine answered the device's last reads
    # before it (its frame log), not what it holds now — a check may have read part of the page before a
    # panel change and the rest after (chaos seed 12 was a false violation of the earlier rule, "newer than
    # the machine's last change"). A register whose last read was refused is unread: drift elsewhere is
    # still drift (Conformance.compare), else the verdict is unknown.
    for c in api.get("/v1/conformance").json():
        dev = cfg.device(c["device"])
        if dev is None or not dev.poll or c["state"] not in ("conforms", "drifted") or "checkedAt" not in c:
            continue
        truth = w.truth.get((dev.id, c["pageId"]), ("none",))
        if truth[0] != "applied" or truth[2] != dev.machine:
            continue
        if c.get("applied", {}).get("versionId") != truth[1]:
            continue
        checked = _epoch(c["checkedAt"])
        page = cfg.pages()[c["pageId"]]
        regs = {r["registerId"]: r for r in page["registers"]}
        spans = {rid: [regs[rid]["address"] + i for i in range(len(words))] for rid, words in truth[3].items() if rid in regs}
        last = _last_answers(w.machines[dev.machine].reader.poll(), dev.unit,
                             {a for addrs in spans.values() for a in addrs}, checked + 0.001)
        if last is None:
            continue  # some register of the page was never read before the verdict: nothing to judge it by
        answered, oldest = last
        if oldest <= w.reloaded_at:
            continue  # read under the config before the last reload (a register may have moved since, seed 12)
        unread = sorted(rid for rid, addrs in spans.items() if any(answered[a] is None for a in addrs))
        drift = sorted(rid for rid, addrs in spans.items() if rid not in unread and
                       tuple(answered[a] for a in addrs) != tuple(truth[3][rid]))
        got = sorted(x["registerId"] for x in c.get("drifted", []))
        if drift != (got if c["state"] == "drifted" else []) or (c["state"] == "conforms" and unread):
            raise Violation("d", f"conformance of {dev.id} {c['pageId']} at {c['checkedAt']}: {c['state']} {got}, "
                                 f"the machine answered the reads before it with words that differ from "
                                 f"{truth[1]} at {drift}" + (f" and refused the reads of {unread}" if unread else ""))


def _last_answers(records: list[dict], unit: int, addresses: set[int], until: float):
    """The word the machine last answered, at each address, to reads of `unit` logged up to `until` (its frame
    log, newest first), None where that read was refused, and the time of the oldest of those reads; None when
    an address was never read."""
    out: dict[int, int | None] = {}
    oldest = until
    for r in reversed(records):
        if len(out) == len(addresses):
            break
        if r["kind"] != "frame" or r["fc"] != 3 or r["unit"] != unit or r["t"] > until:
            continue
        for k in range(r["count"]):
            a = r["address"] + k
            if a in addresses and a not in out:
                out[a] = r["values"][k] if r["exception"] is None else None
                oldest = min(oldest, r["t"])
    return (out, oldest) if len(out) == len(addresses) else None


def _epoch(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()


def holders(runner, page: str, vid: str) -> list[str]:
    """Devices recorded as holding a version: configured ones (conformance), and ids (or pages) a reload took out
    of the config whose last successful replay of the page was that version (their applied state is kept)."""
    out = []
    for c in runner.w.api["A"].get(f"/v1/conformance?page={page}").json():
        if c.get("applied", {}).get("versionId") == vid:
            out.append(c["device"])
    shown = {d.id for d in runner.w.cfg["A"].devices if page in d.pages}
    for (d, p), applied in runner.w.last_applied.items():
        if p == page and applied == vid and d not in shown:
            out.append(d)
    return sorted(out)


# ---------------------------------------------------------------- the archive (e)


def check_archive(runner, full: bool):
    w = runner.w
    for p in model.PAGE_ORDER:
        listing = w.api["A"].get(f"/v1/pages/{p}/templates").json()
        ids = {x["id"] for x in listing}
        for x in listing:
            if not x.get("checksumOK"):
                raise Violation("e", f"{p} {x['id']} listed with a bad checksum: {x.get('problem')}")
        for vid, v in list(w.versions[p].items()):
            if v.deleted and vid in ids:
                raise Violation("e", f"{p} {vid} was deleted, yet it is listed")
            if not v.deleted and vid not in ids:
                raise Violation("e", f"{p} {vid} ({v.origin}) was acknowledged as archived and is gone")
        for vid in sorted(ids - set(w.versions[p])):
            if vid in w.hub_pending[p]:
                v = w.hub_pending[p].pop(vid)
                got = w.api["A"].get(f"/v1/pages/{p}/templates/{vid}")
                same_content(v, version_from_api(got.json(), "fleet", v.order), f"{p} {vid} from the hub")
                w.versions[p][vid] = v
                continue
            maybe = [m for m in runner.maybe[p]]
            got = w.api["A"].get(f"/v1/pages/{p}/templates/{vid}")
            g = version_from_api(got.json(), "?", 0.0)
            match = next((m for m in maybe if [(e["registerId"], e["words"]) for e in m.entries] ==
                          [(e["registerId"], e["words"]) for e in g.entries]), None)
            if match is None:
                raise Violation("e", f"{p} {vid} is listed, and no acknowledged capture, import, promote or sync made it")
            runner.maybe[p].remove(match)
            match.id = vid
            w.versions[p][vid] = match
        if full:
            for vid, v in w.versions[p].items():
                if v.deleted:
                    continue
                got = w.api["A"].get(f"/v1/pages/{p}/templates/{vid}")
                if got.status != 200:
                    raise Violation("e", f"{p} {vid} cannot be read after a restart: {got}")
                same_content(v, version_from_api(got.json(), v.origin, v.order), f"{p} {vid} after a restart")


def after_restart(runner, interrupted=None):
    """After SIGKILL and a restart: every acknowledged version (and its content) and job record is there."""
    w = runner.w
    # The start-up sync is a sync like any other: what B pushed is here now, A's own versions on the hub.
    health = w.api["A"].get("/v1/health").json()
    last = health.get("fleet", {}).get("lastSync", {})
    if last.get("result") != "ok":
        raise Violation("c", f"A's start-up sync with the hub up ended {last.get('result')}: {last.get('message')}")
    after_sync(runner, "A", last)
    check_archive(runner, full=True)
    for host, job, result in w.acknowledged_jobs[w.checked_jobs:]:
        if host != "A":
            continue
        recs = audit_of(runner, "A", job)
        if not any(r["result"] == result for r in recs):
            raise Violation("e", f"job {job} was answered {result}; after SIGKILL its audit record says "
                                 f"{[r['result'] for r in recs]}")
    w.checked_jobs = len(w.acknowledged_jobs)
    if interrupted is None:
        return
    job, device_id, page_id, run, version = interrupted
    writes = [r for r in run.frames.get(w.cfg["A"].device(device_id).machine, []) if is_write(r)]
    recs = audit_window(runner, "A", page_id, run.t0, None, ["replay"])
    if not writes:
        return
    inter = [r for r in recs if r["result"] == "interrupted"]
    if not inter:
        raise Violation("e", f"replay {job} was killed after {len(writes)} write frames; its audit record says "
                             f"{[r['result'] for r in recs]}")
    rec = inter[0]
    # The held frame reached the machine and was never answered: the journal knows it was about to be sent,
    # not that it arrived, so the record counts the frames answered and names the held one in doubt.
    records = run.frames.get(w.cfg["A"].device(device_id).machine, [])
    held = {r["seq"] for r in records if r["kind"] == "hold"}
    answered = [r for r in writes if r["seq"] not in held]
    if rec.get("writeFrames") != len(answered):
        raise Violation("c", f"interrupted record says {rec.get('writeFrames')} write frames answered, the machine "
                             f"answered {len(answered)} (and held {len(writes) - len(answered)} unanswered)")
    # Each beforeWrite/afterWrite step as the machine saw it: answered (ok / failed), held (in doubt), or never sent.
    for phase in ("beforeWrite", "afterWrite"):
        for k, st in enumerate(rec.get(phase) or []):
            frames = [r for r in writes if r["fc"] == 6 and r["address"] == st["address"] and r["values"][0] == st["value"]]
            if not frames:
                want = ("notAttempted", "inDoubt")
            elif frames[-1]["seq"] in held:
                want = ("inDoubt",)
            else:
                want = ("ok",) if frames[-1]["exception"] is None else ("failed",)
            if st.get("status") not in want:
                raise Violation("c", f"interrupted replay of {page_id}: {phase}[{k}] {st['address']} := {st['value']} "
                                     f"recorded {st.get('status')}, the machine shows {want[0]} "
                                     f"({describe(frames[-1]) if frames else 'no frame'})")
    # Every register a logged frame wrote (the held one too: sent, no answer) is in doubt or written, never
    # "not attempted".
    summary = getattr(run, "summary", None)
    if summary is not None:
        by_id = {r["registerId"]: r for r in rec.get("registers", [])}
        for rid in sorted(summary["acked"]):
            st = by_id.get(rid, {}).get("status")
            if st in (None, "notAttempted"):
                raise Violation("c", f"interrupted replay of {page_id}: the machine received a write of {rid}, "
                                     f"its interrupted record says {st}")
    w.truth[(device_id, page_id)] = ("unverified", w.cfg["A"].device(device_id).machine)


def after_reload(runner, old, new):
    w = runner.w
    olds = {d.id: d for d in old.devices}
    for d in new.devices:
        o = olds.get(d.id)
        for p in d.pages:
            key = (d.id, p)
            if o is None:
                w.truth[key] = w.truth.get(key, ("none",)) if key in w.truth else ("none",)
                if w.truth[key][0] != "none":
                    w.truth[key] = ("unknown",)
            elif o.machine != d.machine or o.unit != d.unit or p not in o.pages:
                if key in w.truth and w.truth[key][0] != "none":
                    w.truth[key] = ("unknown",)
                elif key not in w.truth:
                    w.truth[key] = ("none",)


def after_sync(runner, host: str, report: dict):
    w = runner.w
    if host == "B":
        for p in model.PAGE_ORDER:
            for vid, v in w.b_versions[p].items():
                if vid not in w.versions[p] and not v.deleted:
                    # A's copy, to be: a delete on A does not delete B's (one object for both was a harness
                    # bug, chaos seed 6: B's version counted as deleted after A deleted its copy).
                    w.hub_pending[p][vid] = copy.copy(v)
            # What B adopted from the hub: host A's versions, each one the harness saw A archive.
            ids = {x["id"] for x in w.api["B"].get(f"/v1/pages/{p}/templates").json()}
            for vid in sorted(ids - set(w.b_versions[p])):
                a = w.versions[p].get(vid)
                if a is None:
                    raise Violation("e", f"B lists {p} {vid}, which neither B nor A archived")
                mine = copy.copy(a)  # B's copy: deleted here only when A's tombstone reaches B
                mine.deleted = False
                w.b_versions[p][vid] = mine
            for vid, v in w.b_versions[p].items():
                if not v.deleted and vid not in ids:
                    # A delete on A travels as the version's tombstone: B removes its copy once A pushed it.
                    a = w.versions[p].get(vid)
                    if a is None or not a.deleted:
                        raise Violation("e", f"B: {p} {vid} was archived on B and is gone")
                    v.deleted = True
        return
    # A: everything B pushed is archived here now; A's own versions are on the hub.
    for p in model.PAGE_ORDER:
        for vid in list(w.hub_pending[p]):
            got = w.api["A"].get(f"/v1/pages/{p}/templates/{vid}")
            if got.status != 200:
                raise Violation("e", f"A synced ok, but {p} {vid} (pushed by B) is not here: {got}")
            v = w.hub_pending[p].pop(vid)
            same_content(v, version_from_api(got.json(), "fleet", v.order), f"{p} {vid} from the hub")
            w.versions[p][vid] = v
        for vid in w.versions[p]:
            if vid.startswith("line-a-"):
                w.a_pushed.add(vid)


# ---------------------------------------------------------------- template files


def edit_template_file(text: str, v: model.Version, page_def: dict, seed: int, consistent: bool):
    """Changes one u16 entry's words in an exported file and reseals its checksum (it is no signature).
    consistent: value and valueData changed together; else only valueData (the file then lies)."""
    rng = random.Random(seed)
    regs = {r["registerId"]: r for r in page_def["registers"]}
    cands = [e for e in v.entries if e["registerId"] in regs and regs[e["registerId"]]["type"] == "u16"
             and e["layout"][0] == "u16"]
    if not cands:
        return text, None
    e = rng.choice(cands)
    reg = regs[e["registerId"]]
    for _ in range(20):
        words = tuple(model.random_words(reg, rng))
        if words != tuple(e["words"]):
            break
    else:
        return text, None
    head, _, body = text.partition("\n")
    lines = body.split("\n")
    for i, line in enumerate(lines):
        if f'"registerId":"{e["registerId"]}"' in line:
            new_value = codec.decode(list(words), reg) if consistent else e.get("value", codec.decode(list(e["words"]), reg))
            line2, n = re.subn(r'"value":(-?[0-9]+),"valueData":"[0-9A-F]+"',
                               f'"value":{new_value},"valueData":"{codec.hexwords(words)}"', line)
            if n != 1:
                return text, None
            lines[i] = line2
            break
    else:
        return text, None
    body = "\n".join(lines)
    m = re.match(r'^\{"format":"lastset-template","checksum":"sha256:[0-9a-f]{64}","summary":(\{.*\})\}$', head)
    if not m:
        raise Violation("c", f"exported file header has an unexpected shape: {head[:200]}")
    summary = m.group(1)
    covered = body[:-1] if body.endswith("\n") else body  # the file's last newline is not covered
    digest = hashlib.sha256(summary.encode() + b"\n" + covered.encode()).hexdigest()
    head = head.replace(re.search(r"sha256:[0-9a-f]{64}", head).group(0), "sha256:" + digest)
    return head + "\n" + body, (e["registerId"], words)
