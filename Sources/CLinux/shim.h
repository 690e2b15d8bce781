#ifndef ATTACHE_CLINUX_SHIM_H
#define ATTACHE_CLINUX_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <linux/futex.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

/* openat2(2) with `resolve`: glibc 2.36 has no wrapper, and syscall(2) is variadic. -1 with errno set on failure
   (ENOSYS before Linux 5.6, or where a seccomp filter hides the call; EINVAL for a flag the kernel does not know). */
static inline int attache_openat2(int directory, const char *path, int flags, unsigned long long resolve) {
#ifdef SYS_openat2
    struct open_how how = {
        .flags = (unsigned long long)(unsigned int)flags,
        .mode = 0,
        .resolve = resolve,
    };
    return (int)syscall(SYS_openat2, directory, path, &how, sizeof how);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/* openat2(2) with RESOLVE_BENEATH: opens `path` relative to `directory`, the kernel refusing (EXDEV) any
   resolution that leaves it — through "..", an absolute path or symlink, or a /proc magic link — in one atomic
   lookup. */
static inline int attache_open_beneath(int directory, const char *path, int flags) {
    return attache_openat2(directory, path, flags, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
}

#ifndef RESOLVE_CACHED
#define RESOLVE_CACHED 0x20
#endif
/* O_NOATIME, which glibc declares only under _GNU_SOURCE (see attache_name_this_thread); the same on x86-64 and
   arm64. */
#define ATTACHE_O_NOATIME 01000000

/* openat2(2) answered from the kernel's lookup cache alone (RESOLVE_CACHED, Linux 5.12): -1 with EAGAIN where any
   component would need I/O or revalidation (a cold directory, a network file system) rather than waiting for it. */
static inline int attache_open_cached(int directory, const char *path, int flags, unsigned long long resolve) {
    return attache_openat2(directory, path, flags, RESOLVE_CACHED | resolve);
}

/* A directory by its absolute path, from the lookup cache alone. */
static inline int attache_open_cached_directory(const char *path) {
    return attache_open_cached(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
}

/* A file beneath `directory`, from the lookup cache alone, with attache_open_beneath's checks and on the
   directory's own file system (RESOLVE_NO_XDEV: EXDEV for a file under another mount). Without a FIFO's wait
   (O_NONBLOCK) and without an access-time update (O_NOATIME), which would be a journal write: EPERM where the
   caller neither owns the file nor has CAP_FOWNER. */
static inline int attache_open_cached_file(int directory, const char *path) {
    return attache_open_cached(directory, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | ATTACHE_O_NOATIME,
                               RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV);
}

/* pread(2) that takes only what the page cache holds (preadv2, RWF_NOWAIT, Linux 4.14): -1 with EAGAIN where the
   bytes would have to come from the disk, EOPNOTSUPP where the file system cannot say (tmpfs, NFS). glibc declares
   preadv2 only under _GNU_SOURCE, so the system call is made directly; on x86-64 and arm64 its offset is one
   register, the high word ignored. */
static inline long attache_pread_cached(int descriptor, void *buffer, unsigned long count, long long offset) {
#ifdef SYS_preadv2
    struct iovec vector = { buffer, count };
    return syscall(SYS_preadv2, descriptor, &vector, 1, (long)offset, (long)((unsigned long long)offset >> 32),
                   0x00000008 /* RWF_NOWAIT */);
#else
    errno = EOPNOTSUPP;
    return -1;
#endif
}

/* What a file system of statfs type `type` is: 2 keeps its files in memory (tmpfs, ramfs: no read waits for
   anything but a page swapped out, and RWF_NOWAIT cannot be answered there); 1 is local, its opens and reads waiting
   for nothing but its own disk (ext2/3/4, XFS, Btrfs, F2FS, ZFS, overlayfs); 0 is anything else: a network or FUSE
   file system, where opening a file can be a round trip however well its name is cached. */
static inline int attache_file_system_kind(unsigned long type) {
    switch (type & 0xffffffffUL) {
    case 0x01021994UL:  /* TMPFS */
    case 0x858458F6UL:  /* RAMFS */
        return 2;
    case 0xEF53UL:      /* EXT2/3/4 */
    case 0x58465342UL:  /* XFS */
    case 0x9123683EUL:  /* BTRFS */
    case 0xF2F52010UL:  /* F2FS */
    case 0x2FC12FC1UL:  /* ZFS */
    case 0x794C7630UL:  /* OVERLAYFS */
        return 1;
    default:
        return 0;
    }
}

/* attache_file_system_kind of the file system at `path`, or under `descriptor`; 0 when it cannot be asked. */
static inline int attache_file_system_kind_at(const char *path) {
    struct statfs info;
    return statfs(path, &info) == 0 ? attache_file_system_kind((unsigned long)info.f_type) : 0;
}
static inline int attache_file_system_kind_of(int descriptor) {
    struct statfs info;
    return fstatfs(descriptor, &info) == 0 ? attache_file_system_kind((unsigned long)info.f_type) : 0;
}

/* Names the calling thread as `top -H`, `ps -L` and perf show it: its first 15 bytes, which is all the kernel keeps
   (a longer name would be refused whole). pthread_setname_np is a GNU extension, declared here rather than through
   _GNU_SOURCE, which would change how <sys/select.h> declares fd_set for this module alone and clash with the other
   modules that include it. */
extern int pthread_setname_np(pthread_t thread, const char *name);
static inline int attache_name_this_thread(const char *name) {
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = 0;
    return pthread_setname_np(pthread_self(), cut);
}

/* A lock word for short critical sections that several threads take at once (ShortLockModule's ShortLock): 0 free,
   1 held, 2 held with a sleeper its unlock must wake (Drepper, "Futexes Are Tricky", mutex 3). A taker that finds it
   held spins a few dozen `pause`s, then sleeps on a plain futex: no priority inheritance, so no trip through the
   kernel's rt_mutex, and an unlock makes a system call only when someone sleeps. Written with the compiler's
   __atomic builtins on a plain word, since Swift does not import C11 _Atomic types. */
#define ATTACHE_SHORT_LOCK_SPINS 64

static inline void attache_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline void attache_short_lock_contended(unsigned int *word) {
    for (int spin = 0; spin < ATTACHE_SHORT_LOCK_SPINS; spin++) {
        attache_cpu_relax();
        unsigned int expected = 0;
        if (__atomic_load_n(word, __ATOMIC_RELAXED) == 0
            && __atomic_compare_exchange_n(word, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            return;
        }
    }
    /* From here whoever takes the word leaves it at 2, so its unlock wakes the next sleeper, if any. */
    while (__atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE) != 0) {
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
    }
}

static inline void attache_short_lock(unsigned int *word) {
    unsigned int expected = 0;
    if (!__atomic_compare_exchange_n(word, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        attache_short_lock_contended(word);
    }
}

/* Whether a taker sleeps on the word, or is about to: its state 2. */
static inline int attache_short_lock_has_sleepers(unsigned int *word) {
    return __atomic_load_n(word, __ATOMIC_RELAXED) == 2;
}

static inline void attache_short_unlock(unsigned int *word) {
    if (__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2) {
        syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

#endif
