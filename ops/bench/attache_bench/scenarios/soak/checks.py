"""The soak's verdict: fresh reads of its topics and the store, checked against every job the stream sent."""
import json
import os
from dataclasses import dataclass

from ...log import log
from ...targets import RSS_GROWTH
from .rss import RSSSamples
from .topics import DLQ, EVENTS, JOBS, MESSAGES
from .worker_logs import worker_logs


@dataclass
class SoakReport:
    """What the soak did and found; `problems` lists every failed check (empty: all passed)."""
    stream: object  # the JobStream: what was sent
    fault_counts: dict  # broker fault kind -> times injected
    proxy: dict  # the store proxy's counts (PUTs, 503s, cut off, forwarded)
    soaked: float  # seconds under faults
    settled: float  # seconds until every batch finished afterwards
    rss: RSSSamples
    kills: int
    events: int
    types: dict  # event type -> count
    files: int
    failed_attempts: int
    retried_files: int
    exhausted: list  # (batch, fileId, attempt, code) of files out of automatic retries
    dlq: list  # keys of the dead letters
    invalid_sent: list  # invalid records on the jobs topic
    messages: int
    problems: list
    levels: dict  # worker log level -> lines
    missing_batches: int
    missing_files: int
    failed_files: int
    missing_events: int
    unstored: int
    dlq_missing: int


def check(soak, stream, schedule, proxy, soaked, settled):
    """Reads the events, jobs, dead-letter and messages topics afresh and checks every batch and invalid record
    against what the stream sent, and the long-lived worker's RSS against the flat bound."""
    kafka = soak.kafka
    events = kafka.read_all(EVENTS)
    jobs_on_topic = {key for _, key, value in kafka.read_all(JOBS)}
    dlq = [key for _, key, _ in kafka.read_all(DLQ) if key != "bench"]
    messages = [m for m in kafka.read_all(MESSAGES) if m[1] != "bench"]
    truncated = {t: [w for w in kafka.low_watermarks(t) if w > 0] for t in (EVENTS, JOBS, DLQ)}
    by_batch, types = {}, {}
    failed_attempts, retried_files, exhausted = 0, set(), []
    for _, _, value in events:
        if not value.startswith("{"):
            continue
        event = json.loads(value)
        kind, subject, data = event["type"], event.get("subject", ""), event.get("data", {})
        types[kind] = types.get(kind, 0) + 1
        per = by_batch.setdefault(subject, {"types": set(), "uploaded": set(), "progress100": set(), "messaged": set(),
                                            "last": None, "invalid": []})
        per["types"].add(kind)
        if kind == "attache.file.uploaded":
            per["uploaded"].add(data["fileId"])
        elif kind == "attache.file.progress" and data.get("percent") == 100:
            per["progress100"].add(data["fileId"])
        elif kind == "attache.message.sent":
            per["messaged"].update(data.get("fileIds", []))
        elif kind == "attache.batch.completed":
            per["last"] = data["result"]
        elif kind == "attache.job.invalid":
            per["invalid"].append(data.get("dlq"))
        elif kind == "attache.file.failed":
            failed_attempts += 1
            retried_files.add((subject, data["fileId"]))
            if not data.get("willRetry"):
                exhausted.append((subject, data["fileId"], data.get("attempt"), data.get("error", {}).get("code")))
    problems = []
    not_on_topic = [b for b in list(stream.jobs) + stream.invalid if b not in jobs_on_topic]
    if not_on_topic:
        problems.append("{} jobs sent are not on the jobs topic (kcat or the mock lost them before any worker): {}".format(
            len(not_on_topic), ", ".join(sorted(not_on_topic)[:10])))
    missing_batches, missing_files, failed_files, missing_events, unstored = [], [], [], [], []
    for batch, files in stream.jobs.items():
        if batch in not_on_topic:
            continue
        per = by_batch.get(batch)
        if per is None or per["last"] is None:
            missing_batches.append(batch)
            continue
        ids = {f["fileId"] for f in files}
        result = per["last"]
        successful = {s["fileId"] for s in result.get("successful", [])}
        if result.get("failed") or result.get("rejected"):
            failed_files.append((batch, [f["fileId"] for f in result.get("failed", []) + result.get("rejected", [])],
                                 json.dumps(result.get("failed", []) + result.get("rejected", []))[:300]))
        for file_id in sorted(ids - successful):
            missing_files.append((batch, file_id))
        for name, seen in (("file.uploaded", per["uploaded"]), ("file.progress 100%", per["progress100"]),
                           ("message.sent", per["messaged"])):
            for file_id in sorted(ids - seen):
                missing_events.append((batch, name, file_id))
        for f in files:
            stored = soak.nginx.stored_path("attache", batch, f["fileId"], f["name"])
            if not os.path.exists(stored) or os.path.getsize(stored) != f["size"]:
                unstored.append((batch, f["fileId"]))
    invalid_sent = [k for k in stream.invalid if k in jobs_on_topic]
    invalid_events_missing = [k for k in invalid_sent if not by_batch.get(k, {}).get("invalid")]
    invalid_dlq_failed = [k for k in invalid_sent if any(d != "ok" for d in by_batch.get(k, {}).get("invalid", []))]
    dlq_missing = sorted(set(invalid_sent) - set(dlq))
    dlq_unexpected = sorted(set(dlq) - set(invalid_sent))
    for what, items in (("batches without a batch.completed", missing_batches),
                        ("files not successful in their batch's last batch.completed", missing_files),
                        ("batches ending with failed or rejected files", failed_files),
                        ("expected events missing (batch, event, file)", missing_events),
                        ("files not in the store with their size", unstored),
                        ("invalid records without attache.job.invalid", invalid_events_missing),
                        ("invalid records whose job.invalid says the dead letter failed", invalid_dlq_failed),
                        ("invalid records missing from the dead-letter topic", dlq_missing),
                        ("dead letters that are not invalid records sent", dlq_unexpected)):
        if items:
            problems.append("{}: {} (e.g. {})".format(what, len(items), items[:5]))
    if any(truncated.values()):
        problems.append("the mock cluster dropped the oldest records of {} (low watermarks above 0): the fresh read "
                        "is incomplete".format({t: w for t, w in truncated.items() if w}))
    if not soak.rss.flat("a", soaked):
        first, last, _ = soak.rss.summary("a", soaked)
        problems.append("worker a's RSS is not flat: first-minute median {:.1f} MiB, last-minute median {:.1f} MiB "
                        "(+{:.1f} MiB, at most +{} allowed); per minute: {}".format(
                            first, last, last - first, RSS_GROWTH.limit, soak.rss.per_minute_text("a")))
    if stream.failed_ticks:
        problems.append("kcat reported {} ticks undelivered: {}".format(len(stream.failed_ticks), stream.failed_ticks[:3]))
    if problems:
        evidence(soak, problems, missing_batches + [b for b, _ in missing_files] + [b for b, *_ in failed_files]
                 + [b for b, *_ in missing_events] + dlq_missing + invalid_events_missing)
    levels = {}
    for _, lines in worker_logs(soak.workdir):
        for line in lines:
            level = line.split(" ", 2)[1] if line.count(" ") >= 2 else "?"
            levels[level] = levels.get(level, 0) + 1
    return SoakReport(
        stream=stream, fault_counts=schedule.counts, proxy=proxy, soaked=soaked, settled=settled, rss=soak.rss,
        kills=soak.kills, events=len([e for e in events if e[2].startswith("{")]), types=types,
        files=sum(len(f) for f in stream.jobs.values()), failed_attempts=failed_attempts,
        retried_files=len(retried_files), exhausted=exhausted, dlq=dlq, invalid_sent=invalid_sent,
        messages=len(messages), problems=problems, levels=levels,
        missing_batches=len(missing_batches) + len([b for b in not_on_topic if b in stream.jobs]),
        missing_files=len(missing_files), failed_files=sum(len(f[1]) for f in failed_files),
        missing_events=len(missing_events), unstored=len(unstored), dlq_missing=len(dlq_missing))


def evidence(soak, problems, batches):
    """Writes what the topics and the worker logs say about each unfinished batch to logs/soak-evidence.txt."""
    path = os.path.join(soak.workdir, "logs", "soak-evidence.txt")
    events = soak.kafka.read_all(EVENTS)
    logs = dict(worker_logs(soak.workdir))
    with open(path, "w") as out:
        out.write("\n".join(problems) + "\n\n")
        for batch in list(dict.fromkeys(batches))[:20]:
            out.write("=== {}\n".format(batch))
            for stamp, key, value in events:
                if key == batch:
                    out.write("  event {} {}\n".format(stamp, value[:400]))
            for name, lines in logs.items():
                for line in lines:
                    if batch in line:
                        out.write("  {}: {}\n".format(name, line[:400]))
    log("soak: evidence in {}".format(path))
