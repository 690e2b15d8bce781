"""One bench: the scenarios --only names, in the table's order, on one rig."""
from .log import log
from .scenarios import bandwidth, dashboard, fairness, fanout, handover, intake, large, memory, resume, scale, small, soak

# In the default set, in the order of the table.
SCENARIOS = ["large", "memory", "bandwidth", "small", "fanout", "fairness", "intake", "handover", "scale", "resume",
             "dashboard"]
# Run only when asked for: it takes --soak-minutes, ten by default, and writes a section of its own.
EXTRA_SCENARIOS = ["soak"]


def run_scenarios(rig, only, argv):
    """Measures every scenario in `only`; returns the rows of the table (none when only the soak ran)."""
    options = rig.options
    rows = []
    if any(s in SCENARIOS for s in only):
        rig.start_services()
    baseline = None
    if "large" in only:
        log("large: 8 × 64 MiB at concurrency 8 — attache, curl, rclone")
        baseline = large.measure(rig)
        rows += large.rows(baseline)
    if "memory" in only:
        log("memory: 8 × 256 MiB at concurrency 8 — attache, curl")
        rows += memory.rows(memory.measure(rig), baseline)
    if "bandwidth" in only:
        log("bandwidth: {} × {} MiB at concurrency 8 under a {} MiB/s upload cap".format(
            bandwidth.FILES, bandwidth.SIZE_MIB, bandwidth.CAP_MIB))
        rows += bandwidth.rows(bandwidth.measure(rig))
    if "small" in only or "fanout" in only:
        # One set of turns, so that the group of two and the single worker meet the same machine.
        counts = [1] + ([fanout.WORKERS] if "fanout" in only else [])
        log("small: {} one-file 16 KiB jobs — attache with {} worker(s), curl".format(
            options.small_jobs, " and ".join(map(str, counts))))
        measured = small.measure(rig, counts, with_curl="small" in only)
        rows += small.rows(measured) + (fanout.rows(measured) if "fanout" in only else [])
    if "fairness" in only:
        log("fairness: tenant b's one file behind tenant a's {} queued ones, and on an idle worker".format(
            fairness.A_JOBS))
        rows += fairness.rows(fairness.measure(rig))
    if "intake" in only:
        log("intake: {} jobs refused at validation".format(options.intake_jobs))
        rows += intake.rows(intake.measure(rig))
    if "handover" in only:
        log("handover: a fresh worker restores {} idle batches before applying records".format(options.handover_batches))
        rows += handover.rows(handover.measure(rig))
    if "scale" in only:
        log("scale: {} one-file jobs while the group grows from 1 worker to 3 and back".format(options.scale_jobs))
        rows += scale.rows(scale.measure(rig))
    if "resume" in only:
        log("resume: {} MiB in {} MiB parts to moto, the worker killed at {:.0%}, and the missing part alone".format(
            resume.SIZE >> 20, resume.PART_MIB, resume.KILL_AT))
        rows += resume.rows(resume.measure(rig))
    if "dashboard" in only:
        log("dashboard: {} batches on the events topic, read by attache dashboard and shown in Chromium".format(
            options.dashboard_batches))
        rows += dashboard.rows(dashboard.measure(rig))
    if "soak" in only:
        log("soak: {} minutes of broker, store and process faults under two workers".format(options.soak_minutes))
        soak.run(rig, options.soak_minutes, options.results, argv, options.soak_batch_ttl)
    return rows
