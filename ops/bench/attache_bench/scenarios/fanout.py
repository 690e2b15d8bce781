"""fanout: the small run with a group of 2 worker processes, both started together (4 partitions, 2 each), in the
same turns as the one-worker run."""
from ..rows import Row
from ..targets import NONE
from .small import rate_row

WORKERS = 2


def rows(small):
    """Jobs/s of the group, and its time against one worker's."""
    group, one = small.times[WORKERS], small.times[1]
    return [rate_row(small, WORKERS),
            Row("fan-out, small run: {} workers vs 1, time s".format(WORKERS),
                "{} (speed-up {:.2f}×)".format(group.text(), one.median / group.median), "1 worker {}".format(one.text()),
                group.median / one.median, NONE)]
