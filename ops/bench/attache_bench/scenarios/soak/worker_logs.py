"""The soak workers' logs, every incarnation's: logs/soak-<label>.<n>.err."""
import os


def worker_logs(workdir):
    """(file name, lines) of each soak worker's log, by name."""
    folder = os.path.join(workdir, "logs")
    for name in sorted(os.listdir(folder)):
        if name.startswith("soak-") and name.endswith(".err"):
            with open(os.path.join(folder, name), errors="replace") as f:
                yield name, f.read().splitlines()
