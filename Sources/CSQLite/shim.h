#ifndef LASTSET_CSQLITE_SHIM_H
#define LASTSET_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: SQLite copies the bytes before the call returns.
static inline int csqlite_bind_text(sqlite3_stmt *s, int i, const char *text, int bytes) {
    return sqlite3_bind_text(s, i, text, bytes, SQLITE_TRANSIENT);
}
/// A blob bound as a copy (a zero-length blob is bound as such, never as NULL).
static inline int csqlite_bind_blob(sqlite3_stmt *s, int i, const void *bytes, int count) {
    if (count == 0) return sqlite3_bind_zeroblob(s, i, 0);
    return sqlite3_bind_blob(s, i, bytes, count, SQLITE_TRANSIENT);
}
/// sqlite3_config is variadic: SQLITE_CONFIG_LOG (before the library is initialised) sends every error and
/// notice SQLite logs to `callback`, among them the unix VFS's "os_unix.c:N: (errno) call(path) - message".
static inline int csqlite_config_log(void (*callback)(void *, int, const char *), void *context) {
    return sqlite3_config(SQLITE_CONFIG_LOG, callback, context);
}
#endif
