#ifndef ATTACHE_CLINUXFILES_SHIM_H
#define ATTACHE_CLINUXFILES_SHIM_H

#include <errno.h>
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

#endif
