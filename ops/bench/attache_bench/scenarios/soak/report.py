"""The soak's section of results.md: its table, what failed, and how it runs."""
import os
import time

from ...environment import commit_description
from ...rows import markdown
from ...targets import RSS_GROWTH

HEADING = "## Soak: two workers under broker, store and process faults"


def table(report):
    stream, faults, proxy = report.stream, report.fault_counts, report.proxy
    a_first, a_last, a_peak = report.rss.summary("a", report.soaked)
    _, _, b_peak = report.rss.summary("b", report.soaked)

    def zero(n):
        return "{} ({})".format(n, "yes" if n == 0 else "**no**")

    short = {k.replace("attache.", ""): v for k, v in sorted(report.types.items())}
    rows = [["what", "count"],
            ["soak: faults on for, then settling", "{:.0f} s, then {:.0f} s".format(report.soaked, report.settled)],
            ["jobs: valid (inline one-file · path · multi-file) · invalid records", "{} ({} · {} · {}) · {}".format(
                len(stream.jobs), stream.kinds["inline"], stream.kinds["path"], stream.kinds["multi"], len(stream.invalid))],
            ["files in valid jobs", str(report.files)],
            ["events on the events topic (fresh read)", "{}: {}".format(report.events, ", ".join(
                "{} {}".format(k, v) for k, v in short.items()))],
            ["messages on the messages topic", str(report.messages)],
            ["broker faults injected", "{}: {}".format(sum(faults.values()), ", ".join(
                "{} {}".format(k, v) for k, v in faults.items()))],
            ["store faults (PUTs through the proxy)", "{} PUTs: {} answered 503, {} cut off mid-body, {} forwarded".format(
                proxy["puts"], proxy["failed503"], proxy["dropped"], proxy["forwarded"])],
            ["worker b killed with SIGKILL and restarted", str(report.kills)],
            ["upload attempts failed (file.failed events) · files that failed then were retried", "{} · {}".format(
                report.failed_attempts, report.retried_files)],
            ["files out of automatic retries (willRetry false)", zero(len(report.exhausted))],
            ["batches missing (no batch.completed, or not on the jobs topic)", zero(report.missing_batches)],
            ["files missing or failed at the end (last batch.completed, the store)", zero(
                report.missing_files + report.failed_files + report.unstored)],
            ["expected events missing (file.uploaded, progress 100%, message.sent per file)", zero(report.missing_events)],
            ["dead letters: invalid records on the jobs topic · DLQ records (distinct) · missing", "{} · {} ({}) · {}".format(
                len(report.invalid_sent), len(report.dlq), len(set(report.dlq)), zero(report.dlq_missing))],
            ["worker a RSS MiB (lives throughout): first-minute median · last-minute median · peak", "{:.1f} · {:.1f} · {:.1f}".format(
                a_first, a_last, a_peak)],
            ["worker a RSS MiB: median of each minute", report.rss.per_minute_text("a")],
            ["worker a RSS flat: last-minute median − first-minute median ≤ +{} MiB".format(RSS_GROWTH.limit),
             "{:+.1f} ({})".format(a_last - a_first, "yes" if report.rss.flat("a", report.soaked) else "**no**")],
            ["worker b RSS MiB (restarted every minute): peak", "{:.1f}".format(b_peak)],
            ["worker log lines by level (every incarnation)", ", ".join(
                "{} {}".format(k, v) for k, v in sorted(report.levels.items()))],
            ["checks", "all passed" if not report.problems else "**{} failed** (below)".format(len(report.problems))]]
    return rows


def section(report, argv):
    """The table's rows (for stdout) and the whole section's text."""
    rows = table(report)
    lines = [HEADING, "", "Produced by `ops/bench/run {}` on {} (release build of commit {}, {} cores).".format(
        " ".join(argv), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit_description(), os.cpu_count()), "",
        markdown(rows), ""]
    if report.problems:
        lines += ["Failed checks:", ""] + ["- " + p for p in report.problems] + [""]
    lines += [NOTES, ""]
    return rows, "\n".join(lines)


NOTES = """How the soak runs (ops/bench/attache_bench/scenarios/soak/):
- Kafka is `attache dev-broker --brokers 3 --faults`. Every 3 s one broker fault, the kinds in a shuffled cycle:
  1–4 queued request errors for produce, fetch, offsetcommit or heartbeat (NOT_LEADER_FOR_PARTITION,
  REQUEST_TIMED_OUT, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE…); a broker down for 2–5 s (never the group's
  coordinator: librdkafka 2.0's mock group coordinator aborts on `Assertion !member->resp` when a member sends
  JoinGroup again while its first is held, which that provokes during a rebalance); a partition leader
  of the jobs and of the events topic moved; the group coordinator moved; a broker answering 100–500 ms late for
  3–6 s. These hit every client alike: the workers' consumers and producers, and kcat producing the jobs.
- The store is nginx (WebDAV) behind ops/bench/faultproxy.py: 8% of PUTs answered 503, 5% cut off halfway
  through the body with a TCP reset. The workers run with retry.maxAttempts 10, baseDelay 100ms, maxDelay 2s.
  file.failed counts the failed attempts the worker saw: libcurl sends a request again by itself when a kept-alive
  connection it reused dies before any answer, so some cut-off PUTs never reach the worker as failures.
- Two workers, one group (session 6 s). Every minute worker b is killed with SIGKILL and started again at once on
  the same staging directory and worker id; worker a lives throughout, so its RSS (sampled every 3 s, all samples
  in logs/soak-rss.tsv of a kept work directory) is the memory trend. It is a check: its last-minute median may
  exceed its first-minute median by at most 8 MiB.
- One tick of jobs a second: two one-file inline jobs (100 B–3 KiB), a `path` job (64 or 512 KiB) every other
  tick, a four-file job (two inline, two `path`, mixed mime types) every third, an invalid record (not JSON, not an
  object, unknown kind, bad receiver type, files not an array) every seventh. Valid jobs have `message.send = auto`;
  the workers send messages to a Kafka topic (`messages.mode = kafka`), so a batch ends in `message.sent` events.
- At the end the broker faults and the store faults stop; the soak waits (at most 300 s) until every batch's last
  batch.completed lists all its files as successful and message.sent covered them all, then reads the events, jobs,
  dead-letter and messages topics from the beginning with a fresh kcat and checks every batch: its last
  batch.completed has every file successful and none failed or rejected, each file has file.uploaded, a 100%
  file.progress and a message.sent naming it, and its bytes are in the store with the right size; every invalid
  record has attache.job.invalid with `dlq: ok` and a dead letter. Dead letters may repeat (a worker killed
  between the dead letter and its commit copies the record again on replay); none may be missing."""
