#ifndef ATTACHE_CPROCESSSPAWN_SHIM_H
#define ATTACHE_CPROCESSSPAWN_SHIM_H

#include <spawn.h>

/* glibc's file actions for closing every inherited descriptor and changing directory in the child (2.34 and 2.29),
   and pipe2 for pipes that are close-on-exec from the start. The system headers declare them only under
   _GNU_SOURCE, which Swift's Glibc module is not built with. */
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *restrict actions,
                                                const char *restrict path);
extern int pipe2(int fds[2], int flags);

#endif
