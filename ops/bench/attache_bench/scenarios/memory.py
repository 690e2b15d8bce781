"""memory: the large run with 8 × 256 MiB files (against curl): the worker's peak RSS must stay flat in file size,
read against the large scenario's when both ran."""
from ..contender_cpu import cpu_rows
from ..rows import Row
from ..targets import LARGE_PEAK_RSS_FLAT, NONE
from . import large

SIZE_MIB = 256


def measure(rig):
    return large.measure(rig, SIZE_MIB, ["curl"], with_floor=False)


def rows(memory, baseline=None):
    """The 8×256 MiB rows; `baseline` is the 8×64 MiB run, when it ran, for the growth of the peak RSS."""
    attache = memory.times["attache"]
    table = [Row("{}, c=8: time s (MiB/s)".format(memory.title), memory.time_text("attache"), memory.time_text("curl"),
                 attache.over(memory.times["curl"]), NONE),
             Row("{}: Attache's time to its first progress event s".format(memory.title), memory.first_event.text())]
    peak = memory.peak_rss["attache"].median
    flat, checked = "", (peak,)
    if baseline is not None:
        growth = peak - baseline.peak_rss["attache"].median
        flat, checked = "; ×4 size → {:+.1f} MiB".format(growth), (peak, growth)
    table.append(Row("{}: peak RSS MiB".format(memory.title), memory.peak_rss["attache"].text("{:.1f}") + flat,
                     "curl {}".format(memory.peak_rss["curl"].text("{:.1f}")),
                     memory.peak_rss["attache"].over(memory.peak_rss["curl"]), LARGE_PEAK_RSS_FLAT, checked))
    return table + cpu_rows(memory.title, memory.cpu["attache"], "curl", memory.cpu["curl"])
