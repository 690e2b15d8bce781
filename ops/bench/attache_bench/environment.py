"""The lines of results.md that say what ran where: machine, versions, commit, runs, work directory, retries."""
import os
import platform
import subprocess
import time

from .paths import REPO


def first_line(argv):
    try:
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode()
        return out.strip().splitlines()[0]
    except Exception:
        return "?"


def commit_description():
    """The commit attache was built from, and whether the tree had local changes. results.md itself is left out:
    an earlier run's table there says nothing about the code that ran."""
    commit = first_line(["git", "-C", REPO, "rev-parse", "--short", "HEAD"])
    if subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no", "--", ".",
                       ":!ops/bench/results.md"], stdout=subprocess.PIPE).stdout.strip():
        commit += " with local changes"
    return commit


# VIRTIO_BALLOON_F_REPORTING: the guest gives free memory back to the host, and the next write to it faults there.
BALLOON_REPORTING_BIT = 5


def free_page_reporting():
    """Whether this machine gives free memory back to its host (virtio-balloon free page reporting): then memory
    freed a few seconds before a run costs more to write again than memory freed just before it (`Nginx.clear_store`)."""
    root = "/sys/bus/virtio/drivers/virtio_balloon"
    try:
        devices = [d for d in os.listdir(root) if d.startswith("virtio")]
    except OSError:
        return False
    for device in devices:
        try:
            with open(os.path.join(root, device, "features")) as f:
                bits = f.read().strip()
        except OSError:
            continue
        if len(bits) > BALLOON_REPORTING_BIT and bits[BALLOON_REPORTING_BIT] == "1":
            return True
    return False


def environment(rig, started, finished):
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except Exception:
        pass
    kcat = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "kcat"], stdout=subprocess.PIPE).stdout.decode() or "?"
    ram_gib = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30))
    return [
        "- machine: {} × {}, {} GiB RAM, Linux {}{}".format(
            os.cpu_count(), cpu, ram_gib, platform.release(),
            "; gives free memory back to its host (virtio-balloon free page reporting)" if free_page_reporting() else ""),
        "- attache release build of commit {}; {}; {}; nginx {}; kcat {}; librdkafka mock cluster (`attache dev-broker`)".format(
            commit_description(), first_line(["curl", "--version"]).split(" (")[0], first_line(["rclone", "version"]),
            first_line(["/usr/sbin/nginx", "-v"]).replace("nginx version: nginx/", ""), kcat),
        "- {} run(s) per figure, {} → {} ({:.0f} s)".format(rig.runs, time.strftime("%Y-%m-%d %H:%M", time.localtime(started)),
                                                           time.strftime("%H:%M", time.localtime(finished)), finished - started),
        "- files, staging and nginx's store in {} ({})".format(os.path.dirname(rig.workdir),
                                                                "tmpfs, RAM" if rig.on_tmpfs else "disk"),
        "- runs during which the host stole {:.0f}% or more of the CPU are measured again, up to {} times: {} were".format(
            rig.steady.max_steal, rig.steady.retries, rig.steady.retried),
    ]
