"""soak (`ops/bench/run --only soak [--soak-minutes M]`): two workers in one group under a steady mixed job
stream for M minutes while Kafka, the object store and the workers themselves misbehave; then every job is checked.

- Kafka: `attache dev-broker --brokers 3 --faults`; a schedule feeds it fault commands on its standard input
  (request errors on produce, fetch, offsetcommit and heartbeat; a broker down for a few seconds; partition leaders
  and the group coordinator moving; round-trip-time spikes).
- The store: nginx (WebDAV) behind ops/bench/faultproxy.py, which answers a share of PUTs 503 and cuts off others
  mid-body; ops/bench/presign.py points every upload URL at the proxy. The workers retry (retry.maxAttempts 10).
- Workers: two, one group, short session; every minute the second is killed with SIGKILL and started again on its
  staging directory. The first lives through the whole soak, so its RSS shows whether memory stays flat.
- Jobs: one-file inline jobs, `path` jobs, multi-file jobs mixing both and several types (several messages), and
  records that are invalid as a whole (to the dead-letter topic); every valid job has `message.send = auto` and the
  workers send messages to a Kafka topic (`messages.mode = kafka`), so each batch also ends in `message.sent`.

At the end the faults stop, the soak waits for every batch to be complete and messaged, then reads the events, jobs,
dead-letter and messages topics afresh and checks: no batch missing, every file uploaded (last batch.completed, the
store's bytes), every expected event type per batch, one dead letter per invalid record. The table goes to stdout and
to results.md under its own heading.
"""
import os

from ...failure import BenchFailure
from ...log import log
from ...paths import REPO
from ...results_file import replace_section
from ...rows import markdown
from .report import HEADING, section
from .soak_run import Soak


def run(rig, minutes, results, argv, batch_ttl=None):
    """Runs the soak, prints its table and puts its section into `results` (results.md) in place of an earlier one;
    fails when a check did not hold."""
    report = Soak(rig, minutes, batch_ttl).run()
    rows, text = section(report, argv)
    print(markdown(rows))
    for problem in report.problems:
        print("FAILED: " + problem)
    replace_section(results, HEADING, text)
    log("soak table written to {}".format(os.path.relpath(results, REPO)))
    if report.problems:
        raise BenchFailure("the soak lost or left unfinished: " + "; ".join(report.problems)[:2000])
