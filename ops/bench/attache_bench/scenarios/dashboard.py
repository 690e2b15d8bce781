"""dashboard: `attache dashboard` with --dashboard-batches (20,000) batches already on the events topic: how long it
takes to read that history, its resident memory once it holds them, and — in headless Chromium — how long the page
takes from navigation to a table that answers (the first snapshot drawn), and how long a filter takes to redraw it."""
import json
import os
import time
import urllib.request
from dataclasses import dataclass, field

from ..cdp import Browser
from ..children import Child, free_port, proc_status_kib
from ..failure import BenchFailure
from ..figures import Figure
from ..log import log
from ..rows import Row
from ..run_names import run_tag
from ..targets import DASHBOARD_INTERACTIVE, DASHBOARD_RSS

PARTITIONS = 24  # librdkafka's mock keeps about 5 MiB per partition: the history needs this many
RECEIVERS = 500


@dataclass
class DashboardRun:
    batches: int
    events: int = 0
    catch_up: Figure = field(default_factory=Figure)  # process start → history read (s)
    rss: Figure = field(default_factory=Figure)  # VmRSS with every batch held (MiB)
    peak_rss: Figure = field(default_factory=Figure)  # VmHWM at the end (MiB)
    interactive: Figure = field(default_factory=Figure)  # navigation → first snapshot drawn (s)
    snapshot_mib: Figure = field(default_factory=Figure)  # the first stream message's size
    filter_ms: Figure = field(default_factory=Figure)  # a receiver filter typed → table redrawn (ms)


def history(batch, index, count, now_ms):
    """The records a finished batch leaves: its job on the jobs topic, and progress, uploaded (or a rejection every
    fiftieth), completed and message.sent events."""
    receiver = "uid-{}".format(index % RECEIVERS)
    job = {"kind": "upload", "batchId": batch, "receiver": {"id": receiver, "type": "user"}, "sender": "uid-bench",
           "files": [{"fileId": "f1", "name": "photo.jpg", "mimeType": "image/jpeg", "size": 48213,
                      "source": {"url": "https://files.example/{}.jpg".format(batch)}}]}
    when = now_ms - (count - index) * 30  # 30 ms apart, oldest first, the newest just now

    def event(kind, sequence, data):
        data = dict({"batchId": batch, "requestId": "r-" + batch}, **data)
        return {"specversion": "1.0", "id": "{}-{}".format(batch, sequence), "source": "attache/bench-{}".format(index % 3),
                "type": "attache." + kind, "subject": batch, "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(when / 1000))
                + ".{:03d}Z".format(when % 1000), "datacontenttype": "application/json", "sequence": str(sequence), "data": data}

    attachment = {"fileId": "f1", "name": "photo.jpg", "url": "https://cdn.example/{}/f1/photo.jpg".format(batch),
                  "mimeType": "image/jpeg", "extension": "jpg", "size": 48213, "type": "image",
                  "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}
    if index % 50 == 0:
        error = {"code": "ERR_FILE_SIZE_EXCEEDED", "message": "over limits.fileSizeMax", "retryable": False}
        events = [event("file.rejected", 1, {"fileId": "f1", "error": error}),
                  event("batch.completed", 2, {"result": {"batchId": batch, "successful": [], "rejected": [{"fileId": "f1", "error": error}],
                                                          "rejectedTotal": 1, "failed": []}})]
    else:
        events = [event("file.progress", 1, {"fileId": "f1", "loaded": 48213, "total": 48213, "percent": 100}),
                  event("file.uploaded", 2, {"fileId": "f1", "attachment": attachment}),
                  event("batch.completed", 3, {"result": {"batchId": batch, "successful": [{"fileId": "f1", "attachment": attachment}],
                                                          "rejected": [], "rejectedTotal": 0, "failed": []}}),
                  event("message.sent", 4, {"muid": "m-" + batch, "messageType": "image", "fileIds": ["f1"], "response": {"id": str(index)}})]
    return job, events


def write_history(rig, count, jobs_topic, events_topic):
    """Produces the history of `count` batches; returns the number of events."""
    for topic in (jobs_topic, events_topic):
        rig.broker.create_topic(topic, PARTITIONS)
    now_ms = int(time.time() * 1000)
    jobs_path = os.path.join(rig.workdir, "dashboard-jobs.tsv")
    events_path = os.path.join(rig.workdir, "dashboard-events.tsv")
    events = 0
    with open(jobs_path, "w") as jobs, open(events_path, "w") as out:
        for index in range(count):
            batch = "dash-{:06d}".format(index)
            job, batch_events = history(batch, index, count, now_ms)
            jobs.write("{}\t{}\n".format(batch, json.dumps(job, separators=(",", ":"))))
            for e in batch_events:
                out.write("{}\t{}\n".format(batch, json.dumps(e, separators=(",", ":"))))
            events += len(batch_events)
    rig.kafka.produce(jobs_topic, jobs_path, linger_ms=20)
    rig.kafka.produce(events_topic, events_path, linger_ms=20)
    os.remove(jobs_path)
    os.remove(events_path)
    return events


def feed(port):
    return json.loads(urllib.request.urlopen("http://127.0.0.1:{}/api/feed".format(port), timeout=5).read())


def measure(rig):
    result = DashboardRun(rig.options.dashboard_batches)
    tag = run_tag("dashboard", 0)
    jobs_topic, events_topic = "bench.{}.jobs".format(tag), "bench.{}.events".format(tag)
    result.events = write_history(rig, result.batches, jobs_topic, events_topic)
    log("dashboard: {} batches, {} events on {}".format(result.batches, result.events, events_topic))
    for run in range(1, rig.runs + 1):
        measure_one(rig, result, jobs_topic, events_topic, run)
    return result


def measure_one(rig, result, jobs_topic, events_topic, run):
    port = free_port()
    started = time.time()
    dashboard = Child("dashboard-{}".format(run), [rig.attache, "dashboard", "--listen", "127.0.0.1:{}".format(port)], rig.workdir,
                      env={"ATTACHE_KAFKA_BROKERS": rig.kafka.brokers, "ATTACHE_KAFKA_JOBS_TOPIC": jobs_topic,
                           "ATTACHE_KAFKA_EVENTS_TOPIC": events_topic, "ATTACHE_KAFKA_DLQ_TOPIC": "bench.{}.dlq".format(events_topic)})
    browser = None
    try:
        dashboard.first_stdout_line()
        deadline = time.time() + 120
        while True:
            state = feed(port)
            if state["caughtUp"] and state["events"] >= result.events:
                break
            if time.time() > deadline:
                raise BenchFailure("the dashboard read {} of {} events in 120 s".format(state["events"], result.events))
            time.sleep(0.05)
        result.catch_up.add(time.time() - started)
        if state["batches"] != result.batches:
            raise BenchFailure("the dashboard holds {} batches, not {}".format(state["batches"], result.batches))
        result.rss.add(proc_status_kib(dashboard.pid, "VmRSS") / 1024)
        browser = Browser(log_path=os.path.join(rig.workdir, "logs", "chromium-{}.log".format(run)))
        browser.navigate("http://127.0.0.1:{}/".format(port))
        ready_ms = float(browser.wait_for("document.documentElement && document.documentElement.dataset.ready", timeout=30))
        shown = browser.evaluate("document.getElementById('batch-count').textContent")
        if shown != "{:,} batches".format(result.batches):
            raise BenchFailure("the page shows '{}' once ready".format(shown))
        result.interactive.add(ready_ms / 1000)
        result.snapshot_mib.add(len(urllib.request.urlopen("http://127.0.0.1:{}/api/snapshot".format(port), timeout=10).read()) / (1 << 20))
        filter_ms = browser.evaluate("""new Promise((resolve) => {
            const input = document.getElementById('f-receiver'), started = performance.now();
            input.value = 'uid-7'; input.dispatchEvent(new Event('input'));
            requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - started)));
        })""")
        matching = browser.evaluate("document.getElementById('batch-count').textContent")
        if not matching.endswith("of {:,} batches".format(result.batches)):
            raise BenchFailure("the receiver filter shows '{}'".format(matching))
        result.filter_ms.add(filter_ms)
        errors = browser.console_errors()
        if errors:
            raise BenchFailure("the page logged errors: {}".format(json.dumps(errors)[:1000]))
        result.peak_rss.add(proc_status_kib(dashboard.pid, "VmHWM") / 1024)
        log("dashboard run {}: history read in {:.2f} s, RSS {:.1f} MiB, page interactive after {:.2f} s, filter {:.0f} ms ({})".format(
            run, result.catch_up.values[-1], result.rss.values[-1], ready_ms / 1000, filter_ms, matching))
    finally:
        if browser:
            browser.close()
        code = dashboard.stop()
        if code != 0:
            raise BenchFailure("the dashboard exited {} on SIGTERM: {}".format(code, dashboard.stderr_text()[-2000:]))


def rows(result):
    label = "dashboard, {:,} batches ({:,} events) on the events topic".format(result.batches, result.events)
    return [Row(label + ": page load → table interactive (first snapshot drawn), s", result.interactive.text("{:.2f}"),
                target=DASHBOARD_INTERACTIVE, checked=(result.interactive.median,)),
            Row(label + ": dashboard RSS with every batch held · peak, MiB",
                "{} · {}".format(result.rss.text("{:.1f}"), result.peak_rss.text("{:.1f}")),
                target=DASHBOARD_RSS, checked=(result.peak_rss.median,)),
            Row(label + ": history read (process start → caught up), s", result.catch_up.text("{:.2f}")),
            Row(label + ": first stream message (snapshot) MiB · a receiver filter redrawn, ms",
                "{} · {}".format(result.snapshot_mib.text("{:.1f}"), result.filter_ms.text("{:.0f}")))]
