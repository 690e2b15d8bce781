"""What the table checks, in one place: DESIGN §8's figures, and the bounds of the end-to-end scale test
(`scalingOneToThreeToOneUnderLoadRepeatsAlmostNothing`, Tests/EndToEndTests/DurableStateTests.swift) for the scale
run. A row with a target names one of these; whether it is met is decided here, and its text in the table is
written from the same numbers. Floor rows (floor.py) check a peer's target on the floor's own ratio to the peer."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Bound:
    """A limit one figure must keep: `relation` is ≤, < or ≥; `unit` formats the limit for the table."""
    limit: float
    relation: str
    unit: str

    def holds(self, value):
        return {"≤": value <= self.limit, "<": value < self.limit, "≥": value >= self.limit}[self.relation]

    @property
    def text(self):
        return "{} {}".format(self.relation, self.unit.format(self.limit))


@dataclass(frozen=True)
class Target:
    """What a row's figures are held to. `layout` puts the bounds' texts into the table's target column; a target
    without bounds is shown but not checked (a guide, or "—" where the contract sets none)."""
    bounds: tuple = ()
    layout: str = "{0}"
    source: str = ""

    @property
    def text(self):
        return self.layout.format(*(b.text for b in self.bounds))

    def met(self, *figures):
        """Whether every bound holds for the figure given for it, in order; a bound without a figure (measured only
        when another scenario ran too) is not checked. None when there is nothing to check."""
        if not self.bounds:
            return None
        return all(bound.holds(figure) for bound, figure in zip(self.bounds, figures))


def at_most(limit, unit):
    return Bound(limit, "≤", unit)


def below(limit, unit):
    return Bound(limit, "<", unit)


def at_least(limit, unit):
    return Bound(limit, "≥", unit)


LARGE_VS_CURL = Target((at_most(1.10, "{:.2f}×"),), source="§8 large files: within 1.10× of curl --parallel")
# At least 25 % faster: rclone's time at least 1.25 × Attache's.
LARGE_VS_RCLONE = Target((at_most(0.80, "{:.2f}×"),), source="§8 large files: at least 25 % faster than rclone copy --transfers 8")
# "Flat in file size", as the bench reads it: the 8×256 MiB median above the 8×64 MiB one by at most this much.
# The soak holds its long-lived worker's RSS to the same growth.
RSS_GROWTH = at_most(8, "+{:.0f} MiB")
PEAK_RSS = at_most(64, "{:.0f} MiB")
LARGE_PEAK_RSS = Target((PEAK_RSS,), source="§8 memory: peak RSS during the large-file run")
LARGE_PEAK_RSS_FLAT = Target((PEAK_RSS, RSS_GROWTH), "{0}, flat ({1})", source="§8 memory: flat in file size")
SMALL_VS_CURL = Target((at_most(2.0, "{:.1f}×"),), source="§8 small files: within 2× of curl --parallel")
SMALL_CPU_VS_CURL = Target((at_most(2.0, "{:.1f}×"),), source="§8 small files: worker CPU per job within 2× of curl's per file")
INTAKE_JOBS_PER_S = 20000
INTAKE_RATE = Target((at_least(INTAKE_JOBS_PER_S, "{:,.0f} jobs/s"),), source="§8 intake")
# Not a target of its own: the CPU per job at which one core could keep up with INTAKE_RATE.
INTAKE_CPU_GUIDE = Target(layout="(≤ {:.0f} µs ≈ {:,.0f} jobs/s on one core)".format(1e6 / INTAKE_JOBS_PER_S,
                                                                                    INTAKE_JOBS_PER_S))
IDLE_BATCH_BYTES = Target((at_most(300, "{:.0f} bytes"),), source="§8 memory: held per idle batch after the intake run")
HANDOVER_SECONDS = Target((at_most(5, "{:.0f} s"),), source="§8 handover of 100,000 idle batches")
SCALE_REPEATS = Target((at_most(5, "{:.0f} %"),), source="the end-to-end scale test: uploads repeated ≤ 5 % of jobs")
SCALE_POSTS = Target((at_most(1.05, "{:.2f}×"),), source="the end-to-end scale test: message posts ≤ 1.05 × jobs")
DASHBOARD_INTERACTIVE = Target((at_most(2, "{:.0f} s"),), source="§10 and the dashboard issue: interactive within 2 s of load with 20,000 batches")
# The dashboard's bound holding 20,000 batches: the process alone (librdkafka, the HTTP server, the runtime) takes
# about 32 MiB, and each batch held — its files, messages and timeline, in memory — is budgeted 4.5 KiB.
DASHBOARD_RSS = Target((at_most(128, "{:.0f} MiB"),), source="§10 bounded memory: the dashboard's RSS holding 20,000 batches")
FAIRNESS_VS_IDLE = Target((at_most(2.0, "{:.1f}×"),), source="§8 fairness: one tenant's single file behind another's "
                          "2,000 queued small files reaches file.uploaded within 2× of its time on an idle worker")
# Two-sided: the rate upload.maxBytesPerSecond lets through is checked against the cap from below and from above.
BANDWIDTH_VS_CAP = Target((at_least(0.90, "{:.2f}×"), at_most(1.10, "{:.2f}×")), "{0} and {1} the cap",
                          source="§8/§12 upload rate cap: the measured rate within 10 % of upload.maxBytesPerSecond")
RESUME_BYTES = Target((at_most(1.10, "{:.2f}×"),), source="§8 resume: bytes uploaded in total ÷ file size after a kill at 60 %")
# The time from the kill to batch.completed over the budget: the missing 40 % alone on an idle worker plus the handover.
RESUME_TIME = Target((at_most(1.0, "{:.2f}×"),), "{0} (missing 40 % alone + handover)",
                     source="§8 resume: the time to finish after the kill ≤ the missing 40 % alone plus the handover")
NONE = Target(layout="—", source="§8 sets no target for this figure")
