"""What one run's topics, group and objects are called: every attempt of every run gets fresh ones, so that nothing
one left behind (records, offsets, a group's members, stored objects) meets the next."""
from typing import NamedTuple


def run_tag(prefix, run, attempt=0):
    """The name of one attempt of one run (`large64-2`, `large64-2r1`)."""
    return "{}-{}{}".format(prefix, run, "r{}".format(attempt) if attempt else "")


def changelog_of(jobs_topic):
    """The batch changelog of a jobs topic (a worker's kafka.batchesTopic), co-partitioned with it."""
    return jobs_topic + ".batches"


class RunTopics(NamedTuple):
    """The topics and the consumer group of a run tagged `tag`."""
    jobs: str
    events: str
    changelog: str
    group: str

    @classmethod
    def of(cls, tag):
        jobs = "bench.{}.jobs".format(tag)
        return cls(jobs, "bench.{}.events".format(tag), changelog_of(jobs), "bench-" + tag)
