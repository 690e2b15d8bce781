"""One run of a peer (curl, rclone): its whole life, timed, with the CPU of the services it drove."""
from .children import run_timed
from .timed_run import TimedRun


def run_peer(rig, who, argv, name):
    """Empties nginx's store (just before the timed part, as `run_attache` does: `Nginx.clear_store`), then runs
    `argv` to its end under /usr/bin/time, with a CPU account of the services; `who` labels its own CPU, `name` its
    logs."""
    rig.nginx.clear_store()
    account = rig.services_cpu()
    timed = run_timed(argv, rig.workdir, name)
    account.add(who, timed.cpu_seconds)
    account.stop()
    return TimedRun(timed.seconds, timed.peak_rss_kib, account)
