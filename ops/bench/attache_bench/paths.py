"""Where the bench finds the repository, its own scripts and the test venv."""
import os

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # ops/bench
REPO = os.path.dirname(os.path.dirname(BENCH_DIR))
ATTACHE = os.path.join(REPO, ".build", "release", "attache")
# librdkafka 2.16's mock cluster with the fault commands of `attache dev-broker --faults`, run by the test venv.
MOCK_KAFKA = os.path.join(REPO, "Tests", "EndToEndTests", "Support", "mock_kafka.py")


def bench_script(name):
    """One of the helper servers beside bench.py (presign.py, faultproxy.py)."""
    return os.path.join(BENCH_DIR, name)


def wheel_python():
    """The test venv's python, whose confluent-kafka wheel carries librdkafka 2.16 (ops/install-deps test)."""
    return os.path.join(REPO, ".venv", "bin", "python")


def moto_server():
    """The test venv's moto_server (an S3 implementation, ops/install-deps test), the resume run's storage."""
    return os.path.join(REPO, ".venv", "bin", "moto_server")
