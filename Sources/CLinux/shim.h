#ifndef ATTACHE_CLINUX_SHIM_H
#define ATTACHE_CLINUX_SHIM_H

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

/* openat2(2) with RESOLVE_BENEATH: opens `path` relative to `directory`, the kernel refusing (EXDEV) any
   resolution that leaves it — through "..", an absolute path or symlink, or a /proc magic link — in one atomic
   lookup. glibc 2.36 has no wrapper, and syscall(2) is variadic. -1 with errno set on failure (ENOSYS before
   Linux 5.6, or where a seccomp filter hides the call). */
static inline int attache_open_beneath(int directory, const char *path, int flags) {
#ifdef SYS_openat2
    struct open_how how = {
        .flags = (unsigned long long)(unsigned int)flags,
        .mode = 0,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    return (int)syscall(SYS_openat2, directory, path, &how, sizeof how);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/* openat2(2) that answers from the kernel's lookup cache alone (RESOLVE_CACHED, Linux 5.12): -1 with EAGAIN where any
   component would need I/O or revalidation (a cold directory, a network file system), rather than waiting for it.
   `beneath` adds RESOLVE_BENEATH and RESOLVE_NO_MAGICLINKS, as attache_open_beneath, and RESOLVE_NO_XDEV: the file
   stays on the directory's own file system (EXDEV otherwise). -1 with ENOSYS or EINVAL on a kernel without it. */
static inline int attache_open_cached(int directory, const char *path, int flags, int beneath) {
#ifdef SYS_openat2
    struct open_how how = {
        .flags = (unsigned long long)(unsigned int)flags,
        .mode = 0,
        .resolve = RESOLVE_CACHED | (beneath ? RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV : 0),
    };
    return (int)syscall(SYS_openat2, directory, path, &how, sizeof how);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/* pread(2) that takes only what the page cache holds (preadv2, RWF_NOWAIT, Linux 4.14): -1 with EAGAIN where the
   bytes would have to come from the disk, EOPNOTSUPP where the file system cannot say (tmpfs, NFS). glibc declares
   preadv2 only under _GNU_SOURCE (see attache_name_this_thread), so the system call is made directly; on x86-64 and
   arm64 its offset is one register, the high word ignored. */
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

/* Whether the file system at `path` is a local one whose opens wait for nothing but its own disk: ext2/3/4, XFS,
   Btrfs, F2FS, ZFS, tmpfs, ramfs, overlayfs. Network and FUSE file systems are not (opening a file there can be a
   round trip even when its name is cached). 1 if so, 0 if not or unknown. */
static inline int attache_local_file_system(const char *path) {
    struct statfs info;
    if (statfs(path, &info) != 0) return 0;
    switch ((unsigned long)info.f_type & 0xffffffffUL) {
    case 0xEF53UL:      /* EXT2/3/4 */
    case 0x58465342UL:  /* XFS */
    case 0x9123683EUL:  /* BTRFS */
    case 0xF2F52010UL:  /* F2FS */
    case 0x2FC12FC1UL:  /* ZFS */
    case 0x01021994UL:  /* TMPFS */
    case 0x858458F6UL:  /* RAMFS */
    case 0x794C7630UL:  /* OVERLAYFS */
        return 1;
    default:
        return 0;
    }
}

/* Whether the file system under `descriptor` keeps its files in memory (tmpfs, ramfs): 1 if so, 0 if not or unknown.
   These cannot answer RWF_NOWAIT, and need not: their reads wait for nothing but a page swapped out. */
static inline int attache_kept_in_memory(int descriptor) {
    struct statfs info;
    if (fstatfs(descriptor, &info) != 0) return 0;
    return info.f_type == 0x01021994 /* TMPFS_MAGIC */ || info.f_type == (long)0x858458f6 /* RAMFS_MAGIC */;
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

#endif
