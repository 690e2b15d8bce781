#ifndef ATTACHE_CLINUX_SHIM_H
#define ATTACHE_CLINUX_SHIM_H

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
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
