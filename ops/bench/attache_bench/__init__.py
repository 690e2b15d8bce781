"""Attache against its peers, end to end: the package behind ops/bench/bench.py (started by ops/bench/run, which
installs the peers and builds attache; see that script for usage). Standard library only.

Everything runs on this machine: one `attache dev-broker` (Kafka), one nginx serving WebDAV on 127.0.0.1 (the
object store), ops/bench/presign.py (the backend's presign endpoint) and kcat (producing jobs, reading events). The
scale run adds librdkafka 2.16's mock cluster (Tests/EndToEndTests/Support/mock_kafka.py, from the test venv),
ops/bench/faultproxy.py slowing uploads in front of nginx, and ops/bench/presign.py as the message API too.
Source files, the workers' staging directories and nginx's store all live in one work directory, by default in
/dev/shm (tmpfs), so disk write-back never decides a race.

`cli` reads the options and writes results.md; `session` runs the scenarios named by --only, one module each under
`scenarios`, on the `rig` (work directory and services); each scenario returns `rows.Row`s whose targets are the
ones in `targets`.
"""
