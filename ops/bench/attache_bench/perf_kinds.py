"""A `--perf` profile's samples by kind of work, whatever the stage: allocating, reference counting, the kernel's
scheduling, system calls by kind, page faults. A kind's share bounds what any change of that kind can save: fewer
hand-overs between threads, for one, save at most the scheduling and `poll` shares."""
import collections
import subprocess

# (label, function names or prefixes, innermost frames looked at; None: the whole stack). A sample counts once,
# under the first kind in this order that its stack shows. Allocating and reference counting are looked for in the
# innermost two frames only: a stack that merely passes through `malloc`'s caller is someone else's work.
KINDS = [
    ("the kernel's scheduling (context switches, wake-ups, futex waits)",
     ("schedule", "__schedule", "try_to_wake_up", "finish_task_switch", "futex_", "__x64_sys_futex", "__wake_up",
      "ttwu_", "pick_next_task", "dequeue_task", "enqueue_task", "wake_up_q"), None),
    ("poll and epoll", ("do_sys_poll", "__x64_sys_poll", "__x64_sys_ppoll", "ep_poll", "__x64_sys_epoll"), None),
    ("network system calls", ("tcp_sendmsg", "tcp_recvmsg", "sock_sendmsg", "sock_recvmsg", "__sys_sendto",
                              "__sys_recvfrom", "___sys_sendmsg", "___sys_recvmsg"), None),
    # By entry point: `read` and `write` also serve sockets and the curl loop's wake-up pair.
    ("file system calls", ("__x64_sys_openat", "__x64_sys_openat2", "__x64_sys_newfstatat", "__x64_sys_close",
                           "__x64_sys_fstatfs", "__x64_sys_pread64", "__x64_sys_pwrite64", "__x64_sys_fcntl",
                           "__x64_sys_fsync", "__x64_sys_fdatasync"), None),
    ("page faults", ("exc_page_fault",), None),
    ("allocating and freeing (malloc, free and glibc's work behind them)",
     ("malloc", "_int_malloc", "_int_free", "free", "cfree", "__libc_free", "__libc_malloc", "malloc_consolidate",
      "unlink_chunk", "swift_slowAlloc", "swift_slowDealloc"), 2),
    ("reference counting (swift_retain, swift_release)",
     ("swift_retain", "swift_release", "swift_bridgeObjectRetain", "swift_bridgeObjectRelease",
      "swift_unknownObjectRetain", "swift_unknownObjectRelease"), 2),
]


def _samples(data):
    """Each sample's stack, innermost frame first, as function names."""
    script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,ip,sym"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True).stdout
    stack = None
    for line in script.splitlines():
        if not line.strip():
            if stack is not None:
                yield stack
            stack = None
        elif line[0] in " \t" and stack is not None:
            fields = line.split(None, 1)
            stack.append(fields[1].split("+")[0] if len(fields) > 1 else "?")
        else:
            stack = []
    if stack is not None:
        yield stack


def _matches(frame, names):
    return any(frame == name or (name.endswith("_") and frame.startswith(name)) for name in names)


def shares(data):
    """(samples, [(label, share in %)]) of a `perf record -g` file, in KINDS' order."""
    counts, total = collections.Counter(), 0
    for stack in _samples(data):
        total += 1
        for label, names, depth in KINDS:
            if any(_matches(frame, names) for frame in (stack if depth is None else stack[:depth])):
                counts[label] += 1
                break
    return total, [(label, 100.0 * counts[label] / total if total else 0.0) for label, _, _ in KINDS]


def report(data):
    """The section the profile's text report ends with."""
    total, kinds = shares(data)
    lines = ["### samples by kind, whatever the stage ({} samples; each counted under the first kind, in this order, "
             "its stack shows)".format(total)]
    lines += ["{:6.1f} %  {}".format(share, label) for label, share in kinds]
    lines.append("{:6.1f} %  the rest (the work itself)".format(100.0 - sum(share for _, share in kinds)))
    return "\n".join(lines) + "\n"
