"""What results.md says, under the table, about how the figures are taken. Kept word for word from run to run:
a change here is a change of what the figures mean."""

NOTES = """How the figures are taken:
- Times are wall-clock seconds. Attache: from just before `kcat -P` starts producing the job(s) to the moment the
  last `attache.batch.completed` is seen by a kcat consumer already following the events topic. Each run has a fresh
  worker (fresh group and topics) that already holds its partitions and has finished warm-up jobs. curl/rclone: the
  process's whole life. The contenders take turns going first from run to run.
- Attache reads `path` sources in place, as curl and rclone do (DESIGN §5: the open descriptor is the file's staged
  bytes; no copy), and hashes each byte with SHA-256 as the upload reads it (`endpoint` mode) or in a read pass
  before the upload (`s3` mode), on its transfer's libcurl thread (one). All three PUT to the same nginx
  (WebDAV, `worker_processes auto`).
  "Time to its first progress event" is the part of Attache's time spent before the first bytes went out.
- CPU by process: user + system seconds each process used during the timed part of a run (from /proc, and from
  `/usr/bin/time` for curl and rclone), summed with the services it drove (nginx master and workers, the broker,
  the presign endpoint, kcat producing and following) and the bench's own CPU (reading what kcat follows). Total ÷
  cores is the shortest time that work could take on this machine if nothing ever waited: when it is close to the
  measured time, the machine was saturated and the time can only fall with the CPU.
- Peak RSS: the worker's VmHWM at the end of the run; curl/rclone from `/usr/bin/time`. "Flat" = the 8×256 MiB
  median exceeds the 8×64 MiB median by at most 8 MiB.
- Bandwidth: one `path` job of 8 × 8 MiB files at concurrency 8, the worker run with
  `upload.maxBytesPerSecond=8MiB` (one token bucket all its uploads draw on); the rate is 64 MiB ÷ Attache's time as
  above (staging and presigning count against it), checked from both sides against the cap. The stored bytes are
  compared with the sources.
- Small files: the same 16 KiB files as `path` sources, one job each, `worker.maxTransfers=32`; curl runs
  `--parallel --parallel-max 32`. In `endpoint` presign mode Attache presigns each job's file with
  ops/bench/presign.py; in `s3` mode it signs path-style SigV4 URLs itself (nginx's WebDAV PUT ignores the
  signature). Events/s counts every event about the measured batches (progress, uploaded, completed). "CPU per job"
  is the worker's CPU ÷ jobs; curl's "CPU per file" is curl's own CPU ÷ files (neither counts nginx). "By thread"
  splits the worker's CPU per job by the threads it ran on (each thread's schedstat, grouped by name): the curl loop
  (uploads, and presign calls in `endpoint` mode, with the progress events their callbacks publish), Kafka
  (librdkafka's threads and the consumer's and producer's poll threads), the staging queue (opening, sniffing and
  hashing sources), the serial queues (snapshots encoded and produced, the local store's writes) and Swift's task
  pool (intake, the batches' transitions, presigning in `s3` mode, the other events); "rest" is what threads that
  ended meanwhile used, and rounding.
- Floor (DESIGN §8): next to curl, what curl and nginx used plus what the contract adds, each addition measured alone
  in the same run on the same bytes: SHA-256 of every byte (`openssl dgst -sha256`, the library the worker hashes
  with), the presign calls (curl posting the same requests to ops/bench/presign.py, both their CPU; none in `s3`
  mode), and the Kafka records (kcat producing as many records of 600 bytes as the run wrote — jobs, events and the
  changelog records of the measured batches — and the broker's CPU). Floor CPU = curl's total + the additions;
  floor time = the larger of curl's time and the floor CPU ÷ cores: the least time the work could take here, the
  additions running on the CPU curl left idle as far as it goes. The row's target is checked on the floor ÷ curl:
  whether the contract alone leaves §8's ratio in reach.
- Floor CPU per job: curl's own CPU per file plus, per job, the worker's side of each addition — openssl's hashing,
  curl's posting of the presign calls (not the endpoint's answering them) and kcat's producing of the records (not
  the broker's taking them). Its ratio to curl's per file is what the target on worker CPU per job is checked on. In
  `endpoint` mode a job is two HTTP requests (the presign call and the upload) where curl makes one.
- Per job (small): two more runs of each one-worker contender, not timed, with `perf stat` attached to the worker for
  the measured jobs (ops/bench/attache_bench/job_counts.py): first the kernel's counts — system calls
  (raw_syscalls:sys_enter), context switches, wake-ups its threads issued (sched:sched_wakeup), page faults — then,
  in a run of their own because their uprobes slow the worker (and a slowed worker's Kafka threads poll more), the
  code's — allocations (a uprobe on libc's malloc), Swift tasks (swift_task_create) and the hops between threads —
  each ÷ jobs. Changelog records per job are read back from the topic (keys of the measured
  batches), not taken from the worker's counters.
- Fan-out: the small run with 2 worker processes in one group, both started together (4 partitions, 2 each).
- Fairness: one worker with `worker.maxTransfers=8`. Loaded: tenant a's 2,000 one-file 16 KiB `path` jobs (the
  small run's files, `"tenant":"a"`) are produced, and once the worker counts them all taken in
  (`attache_jobs_total{outcome="accepted"}`), so that every one of a's files is uploading or waiting for a slot,
  tenant b's one-file job is produced; idle: the same job on a fresh worker with nothing else to do. The time is from
  just before `kcat -P` starts producing b's job to its `attache.file.uploaded` seen. a's files "uploaded after b's"
  are those whose file.uploaded has a later CreateTime than b's.
- Intake: all jobs are produced before the worker starts; from the worker's `partitions assigned` log line to the
  Kafka timestamp of the last event it produced. Each job yields `file.rejected` + `batch.completed`; the counts are
  checked against the events topic's end offsets and the worker's metrics. Every job is a batch of its own, so the
  run leaves 50,000 idle batches; their snapshots go to a changelog (`<jobs topic>.batches`) and the local store.
  "Memory held per idle batch" is the worker's RSS growth from its assignment to 4.5 s after the last job (two of its
  2-second sweeps, which let idle batches beyond `worker.maxCachedBatches` (10,000) leave memory), divided by the
  jobs: the cached batches, SQLite's page cache and what the allocator keeps, spread over the batches.
- Handover: the changelog is written directly (kcat, 24 partitions, one idle one-file snapshot of about 0.9 KB per
  batch), one job per partition is produced, and a worker with an empty staging directory starts: the time from its
  `partitions assigned` log line until the last of the 24 jobs completed. It reads every changelog record into its
  SQLite store first (`partition restored … recordsRead=` in its log, summed in the next row).
- Scale 1→3→1 (after the end-to-end test `scalingOneToThreeToOneUnderLoadRepeatsAlmostNothing`): 150
  one-file jobs (16 KiB of inline jpeg, `send = auto`) are produced at once to fresh topics (4 partitions, a changelog
  of their own) and a fresh group; one worker starts; once 20 batches completed two more join; once both hold
  partitions and 80 completed, both get SIGTERM together and must exit 0; the first then finishes alone, until every
  batch completed with its file and had `message.sent`. Workers as in the test: `worker.maxTransfers=8`, session 6 s
  (which caps `worker.revokeGrace` at 4 s), messages over HTTP to ops/bench/presign.py's message API, which counts
  every post by `data.metadata.batchId`. Every PUT goes through ops/bench/faultproxy.py, which reads bodies at 8 KiB/s
  (about 2 s per file; the test trickles at 64 KiB/s), so the members join and leave while uploads are in flight; it counts
  the PUTs per object path as their heads arrive. "Uploads repeated" = Σ (PUTs of a path − 1) ÷ files: an upload
  cut off on a member that gave its partitions up (still sending at the end of the revoke grace, or because they
  were lost) and made again by their new owner, so at most about `worker.maxTransfers` per handover; queued files
  and uploads not yet sending are handed over without being started. "Message posts ÷ messages" = posts ÷ batches
  (one message each). The test marks on `message.sent`; the marks here count `batch.completed`, which a batch
  reaches just before its message is posted. Kafka for this run is librdkafka 2.16's mock
  (the confluent-kafka wheel in the test venv), as in the test: librdkafka 2.0.2's (`attache dev-broker`,
  `--scale-kafka dev-broker`) can drop the member that was there first when another joins, so that its partitions
  are lost rather than revoked.
- Resume: one 256 MiB `path` file (random bytes) in `s3` mode, `upload.partSize=5MiB` (52 parts, four at a time),
  to moto (the test venv's moto_server, in memory) through ops/bench/faultproxy.py, which counts the PUTs (UploadPart
  requests, as their heads arrive) and the bytes of their bodies that arrived, a body cut off by the kill counted for
  what came of it. Two workers start together on fresh topics of 2 partitions (session 6 s) and take one each; the job
  goes to the first's, whose uploads are capped at `upload.maxBytesPerSecond=32MiB` so the kill lands near 60 %: it
  gets SIGKILL once one of its `file.progress` events says 60 % (events come at most four a second, 8 MiB apart at
  that rate, and are read with `fetch.wait.max.ms=5`, so the kill comes at 60–64 %). "Bytes sent in all ÷ file size" is the proxy's byte count for the object over 256 MiB. The time is from
  the kill to `batch.completed` seen; the handover is from the kill to the second worker's `partition restored` log line
  for the partition (the session timing out, the mock's rebalance, the changelog read); "alone" is a fresh worker on
  its own topics, done restoring its partitions, uploading a file of the missing 40 % (102.4 MiB) the same way, from
  the job produced to `batch.completed` seen. The new owner takes the recorded digest when the file's size and
  modification time are those the upload recorded (DESIGN §12), so it reads only the parts it sends; the stored
  object's SHA-256 is checked against the source's, and no incomplete upload may be left. Storage's
  CompleteMultipartUpload assembles the whole object, so it costs the resumed 256 MiB more than the 102.4 MiB alone:
  on moto about 1.07 s against 0.46 s (52 and 21 parts of 5 MiB, timed with boto3). Kafka is librdkafka 2.16's
  mock, as for the scale run.
- Dashboard: the history of --dashboard-batches (20,000) finished batches is produced first (kcat, 24 partitions
  each): per batch its job on the jobs topic and its events — file.progress, file.uploaded, batch.completed,
  message.sent, or for every fiftieth a rejection and batch.completed — from three workers, 30 ms apart. Each run
  starts `attache dashboard` (release build, `dashboard.maxBatches` 50,000) on those topics: "history read" is from
  its start until /api/feed says it caught up with every event; the RSS is its VmRSS then, the peak its VmHWM at the
  end of the run. Headless Chromium (Debian's, over the DevTools pipe) then loads the page: "interactive" is the
  page's own clock (performance.now, from navigation start) when it drew the table from the first stream message,
  the snapshot of all 20,000 rows; the run checks that the table says 20,000 batches. The filter figure is a
  receiver typed into the filter until the table is redrawn (two animation frames).
- Ratios are Attache/peer of the medians (time or RSS): below 1 means Attache is faster or smaller.
- Kafka is librdkafka's mock cluster (`attache dev-broker`). It holds an empty fetch for the consumer's whole
  `fetch.wait.max.ms` even when records arrive meanwhile, so the workers run with `fetch.wait.max.ms=10` (a real
  broker answers as soon as data is there); it keeps only the last 5 MiB of each partition.
- Memory written for the first time in a while is slow on a virtual machine that hands freed pages back to its host
  (virtio-balloon free page reporting, named on the machine line when it is on): the host takes memory freed about
  2 s earlier, and the next write to each of its pages faults there. Each contender therefore empties nginx's store
  just before its timed part, so that it writes into memory its predecessor freed a moment before. When the store
  was emptied before Attache's worker started (seconds before its timed part) and right before curl's run, nginx
  spent 4.3–5.4 CPU-s receiving Attache's 8 × 256 MiB against 3.0–3.6 s for curl's, with the same system calls
  (263,000 reads and 262,000 writes of 8 KiB for each): the difference was all in the kernel's copy into tmpfs
  pages (0.56 s for curl's bytes, 1.42 s for Attache's, in a profile of nginx). Delaying curl's run by 6 s after
  emptying the store gave it the same 4.0–5.0 s. The first run of a scenario is still dearer for nginx, more so for
  the contender that goes first (Attache, in the first run): filling the store with a run's bytes beforehand did not
  change that, and the cause is not known; the contenders take turns going first, and the figures are medians.
  `--strace-nginx` counts nginx's system calls per contender.
- "Host costs" (the environment lines above) are what this host charged, when the run started and when it ended, for
  the operations a small job is made of besides computing: a system call, a first touch of a memory page, one thread
  waking another and being woken back, a small malloc + free. A small job makes a few dozen system calls, a few
  first touches and a few wakes and hundreds of mallocs, so on a host where these cost twice as much, the small and
  intake figures are worse by far more than a CPU benchmark would suggest: compare runs from different days by these
  lines before comparing their figures. The wake figure is taken with the machine idle, when waking a halted virtual
  CPU costs most (on a busy machine it was about half).
- Everything (broker, nginx, presign endpoint, kcat, the client under test) shares the machine's cores, and other
  work on the machine is not stopped, so spreads can be wide; the ratios are the point.
- "CPU the host stole": on a virtual machine, the share of the CPU time the machine wanted during a timed run that
  the hypervisor gave to other guests instead (`steal` in /proc/stat, over busy + steal). Every process of the run
  loses it alike, so a run with much steal is slow for a reason outside it; when Attache's and the peer's runs
  saw very different steal, their ratio says more about the host than about them. A run that lost `--max-steal`
  (10%) or more is measured again (`--steal-retries`, 2), Attache's and the peers' alike; the line above says how
  many were."""
