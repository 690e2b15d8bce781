"""bandwidth: one worker capped at upload.maxBytesPerSecond CAP_MIB MiB/s uploading 8 × 8 MiB `path` files at
concurrency 8 into nginx: the rate from the job produced to its batch.completed seen must stay within 10 % of the
cap (DESIGN §8, §12: 64 MiB at 8 MiB/s take 8 s ± 10 %). Uncapped, nginx takes the same bytes in well under a
second (the large scenario), so the time is the token bucket's."""
import os
from dataclasses import dataclass, field

from ..attache_run import run_attache
from ..failure import BenchFailure
from ..figures import Figure
from ..jobs import path_job
from ..log import log
from ..rows import Row
from ..run_names import run_tag
from ..sources import MIB
from ..targets import BANDWIDTH_VS_CAP

FILES = 8
SIZE_MIB = 8
CAP_MIB = 8  # upload.maxBytesPerSecond, MiB/s


@dataclass
class Bandwidth:
    times: Figure = field(default_factory=Figure)  # seconds: the job produced → its batch.completed seen

    @property
    def rate(self):
        """MiB/s, run by run."""
        return Figure(FILES * SIZE_MIB / s for s in self.times.values)


def measure(rig):
    paths = rig.sources.make_files("bandwidth", FILES, SIZE_MIB * MIB)
    relative = [rig.sources.relative(p) for p in paths]
    bandwidth = Bandwidth()
    nginx = rig.nginx

    def measure_one(who, run, attempt):
        tag = run_tag("bandwidth", run, attempt)
        batch = "bw-" + tag
        measured = run_attache(rig, "bandwidth", tag, [(batch, path_job(batch, relative, concurrency=8))],
                               extra={"ATTACHE_UPLOAD_MAX_BYTES_PER_SECOND": "{}MiB".format(CAP_MIB)})
        uploaded = len(measured.results[batch].get("successful", []))
        if uploaded != FILES:
            raise BenchFailure("batch {} uploaded {} files".format(batch, uploaded))
        nginx.check_stored([(p, nginx.stored_path("attache", batch, "f{}".format(i + 1), os.path.basename(p)))
                            for i, p in enumerate(paths)], True)
        return measured

    for run, _, measured in rig.take_turns("bandwidth", ["attache"], measure_one):
        bandwidth.times.add(measured.seconds)
        log("bandwidth run {}: {} MiB in {:.3f} s, {:.2f} MiB/s at a cap of {} MiB/s".format(
            run, FILES * SIZE_MIB, measured.seconds, FILES * SIZE_MIB / measured.seconds, CAP_MIB))
    return bandwidth


def rows(bandwidth):
    """The measured rate against the cap; the target is checked on their ratio from both sides."""
    ratio = bandwidth.rate.median / CAP_MIB
    title = "bandwidth {}×{} MiB, c=8, upload.maxBytesPerSecond {} MiB".format(FILES, SIZE_MIB, CAP_MIB)
    return [Row(title + ": time s · MiB/s",
                "{} · {}".format(bandwidth.times.text(), bandwidth.rate.text()),
                "cap {} MiB/s ({:.2f} s)".format(CAP_MIB, FILES * SIZE_MIB / CAP_MIB), ratio, BANDWIDTH_VS_CAP,
                (ratio, ratio))]
