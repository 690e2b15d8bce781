#ifndef ATTACHE_CSQLITE_SHIM_H
#define ATTACHE_CSQLITE_SHIM_H

#include <stddef.h>
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro that casts -1 to a destructor pointer, which Swift cannot import: typed wrappers that
   bind with it, so SQLite copies the bytes before the call returns. A null pointer would bind SQL NULL, so an empty
   value is bound as an empty text or a zero-length blob. */
static inline int attache_sqlite3_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text ? text : "", length, SQLITE_TRANSIENT);
}

static inline int attache_sqlite3_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    if (bytes == NULL || length == 0) return sqlite3_bind_zeroblob(statement, index, 0);
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

#endif
