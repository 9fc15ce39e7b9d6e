import Foundation

/// Builds an LD_PRELOAD fault library from C `source` with gcc into `dir`; returns its path.
public func buildFaultLibrary(_ source: String, in dir: URL) throws -> String {
    let file = dir.appendingPathComponent("fault.c")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let library = dir.appendingPathComponent("fault.so").path
    let gcc = try ProgramRun.run(
        URL(fileURLWithPath: "/usr/bin/gcc"), ["-shared", "-fPIC", "-O2", "-o", library, file.path, "-ldl"])
    guard gcc.status == 0 else { throw TestSupportError("gcc could not build the fault library: \(gcc.stderr)") }
    return library
}

/// An LD_PRELOAD library for the database's fault tests: it fails the fsync and fdatasync of `lastset.db-wal` with
/// EIO while the file $LASTSET_FAULT_WAL_FSYNC_EIO exists — always when it is empty, else as many times as the
/// number it holds (then the fault stops): a disk that refuses to confirm a commit. With $LASTSET_FAULT_LOG set it
/// also logs the path of every directory fsynced.
public let walFsyncFaultSource = #"""
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <errno.h>
    #include <fcntl.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/stat.h>
    #include <unistd.h>

    static int faulted(int fd) {
        char link[64], path[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, path, sizeof path - 1);
        path[n < 0 ? 0 : n] = 0;
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            const char *log = getenv("LASTSET_FAULT_LOG");
            if (log) {
                int l = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                if (l >= 0) { dprintf(l, "%s\n", path); close(l); }
            }
            return 0;
        }
        const char *flag = getenv("LASTSET_FAULT_WAL_FSYNC_EIO");
        if (!flag || access(flag, F_OK) != 0) return 0;
        size_t len = strlen(path);
        if (len < 15 || strcmp(path + len - 15, "/lastset.db-wal") != 0) return 0;
        int left = -1;
        FILE *f = fopen(flag, "r");
        if (f) { if (fscanf(f, "%d", &left) != 1) left = -1; fclose(f); }
        if (left == 0) return 0;
        if (left > 0) { f = fopen(flag, "w"); if (f) { fprintf(f, "%d\n", left - 1); fclose(f); } }
        return 1;
    }

    int fsync(int fd) {
        static int (*real)(int);
        if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
        if (faulted(fd)) { errno = EIO; return -1; }
        return real(fd);
    }

    int fdatasync(int fd) {
        static int (*real)(int);
        if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
        if (faulted(fd)) { errno = EIO; return -1; }
        return real(fd);
    }
    """#
