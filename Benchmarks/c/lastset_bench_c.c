/*
 * lastset-bench-c: the hand-written libmodbus baseline of the Lastset benchmarks.
 *
 * A worker driven over stdin by lastset-bench, one command per line, one answer line per command:
 *
 *   connect ID HOST PORT                      -> "ok"            (opens context ID; not timed)
 *   read ID UNIT START COUNT MAXREAD          -> "ok NS REQUESTS"
 *        FC03 loop over START..START+COUNT in chunks of MAXREAD (the minimal plan for a contiguous page)
 *   replay ID UNIT START COUNT MAXWRITE       -> "ok NS REQUESTS MISMATCHES"
 *        FC16 loop in chunks of MAXWRITE, each chunk read back (FC03) and compared before the next write
 *   readplan ID UNIT A:N,A:N,...              -> "ok NS REQUESTS"
 *        one FC03 per A:N pair: the minimal plan the harness computed without splitting a register
 *   replayplan ID UNIT A:N,A:N,...            -> "ok NS REQUESTS MISMATCHES"
 *        one FC16 per A:N pair, each read back (FC03) and compared before the next write
 *   windowplan ID UNIT wA:N,rA:N,...          -> "ok NS REQUESTS MISMATCHES"
 *        the requests in the order given: wA:N one FC16 of bench values, rA:N one FC03 compared with
 *        them (the harness lays out Lastset's replay: snapshot, verification windows, final pass)
 *   durable PATH BYTES                        -> "ok NS"
 *        writes BYTES bytes to PATH.tmp, fsync, rename to PATH, fsync the directory (Lastset's
 *        durable archive write, without the template encoding)
 *   logreadplan ID UNIT PATH BYTES A:N,...    -> "ok NS REQUESTS"
 *        readplan, then BYTES appended to PATH and one fdatasync: the durable minimum of a capture
 *        (the version and its audit record written together, one fsync)
 *   logwindowplan ID UNIT PATH INTENT OUTCOME wA:N,rA:N,...  -> "ok NS REQUESTS MISMATCHES"
 *        INTENT bytes appended to PATH + fdatasync before the first frame, the windowplan, then OUTCOME
 *        bytes appended + fdatasync after the read-back: the durable minimum of a replay (two fsyncs)
 *   perreg-read ID UNIT START COUNT           -> "ok NS REQUESTS"   one FC03 per register
 *   perreg-replay ID UNIT START COUNT         -> "ok NS REQUESTS MISMATCHES"  FC06 + FC03 read-back per register
 *   quit
 *
 * The value written to address A is bench_value(A), the same function lastset-bench uses to fill the
 * simulators, so a replay leaves the server unchanged. Errors answer "err MESSAGE".
 * Build: cc -O2 -o lastset-bench-c lastset_bench_c.c $(pkg-config --cflags --libs libmodbus)
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <modbus.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONTEXTS 64
#define MAX_PLAN 4096

static modbus_t *contexts[MAX_CONTEXTS];

static uint16_t bench_value(long address) { return (uint16_t)((address * 7 + 1) % 50000); }

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static modbus_t *context(int id) {
    if (id < 0 || id >= MAX_CONTEXTS) return NULL;
    return contexts[id];
}

static void fail(const char *what) {
    printf("err %s: %s\n", what, modbus_strerror(errno));
}

/* One append-only log per path, kept open as a database file is: the durable minimum's records. */
#define MAX_LOGS 16
#define LOG_RESET_BYTES (64L << 20)
static char logPaths[MAX_LOGS][4096];
static int logFds[MAX_LOGS];
static int logCount;

/* The descriptor of PATH's log (opened O_APPEND on first use); -1 on failure (errno set). */
static int log_fd(const char *path) {
    for (int i = 0; i < logCount; i++)
        if (strcmp(logPaths[i], path) == 0) return logFds[i];
    if (logCount == MAX_LOGS) { errno = EMFILE; return -1; }
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0) return -1;
    snprintf(logPaths[logCount], sizeof logPaths[logCount], "%s", path);
    logFds[logCount++] = fd;
    return fd;
}

/* Untimed housekeeping before a timed command: a log past 64 MiB starts over (as a checkpointed WAL is
   rewritten from its start), so a long run does not fill the disk. */
static void log_reset_if_large(int fd) {
    off_t size = lseek(fd, 0, SEEK_END);
    if (size > LOG_RESET_BYTES && ftruncate(fd, 0) == 0) fdatasync(fd);
}

/* Appends BYTES bytes of a record to fd and makes them durable with one fdatasync; 0 or -1 (errno). */
static int append_durably(int fd, long bytes) {
    static char data[4 << 20];
    if (bytes < 0 || bytes > (long)sizeof data) { errno = EINVAL; return -1; }
    memset(data, 'x', (size_t)bytes);
    long done = 0;
    while (done < bytes) {
        ssize_t n = write(fd, data + done, (size_t)(bytes - done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        done += n;
    }
    return fdatasync(fd);
}

int main(void) {
    static char line[65536];
    static long planAddress[MAX_PLAN], planCount[MAX_PLAN];
    static uint16_t buffer[MODBUS_MAX_READ_REGISTERS];
    static uint16_t values[MODBUS_MAX_WRITE_REGISTERS];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        char command[32], host[64];
        int id, unit, port;
        long start, count, max;
        if (sscanf(line, "%31s", command) != 1) continue;
        if (strcmp(command, "quit") == 0) break;
        if (strcmp(command, "connect") == 0) {
            if (sscanf(line, "%*s %d %63s %d", &id, host, &port) != 3 || id < 0 || id >= MAX_CONTEXTS) {
                printf("err bad connect line\n");
                continue;
            }
            if (contexts[id]) {
                modbus_close(contexts[id]);
                modbus_free(contexts[id]);
            }
            modbus_t *ctx = modbus_new_tcp(host, port);
            if (!ctx) { fail("modbus_new_tcp"); continue; }
            modbus_set_response_timeout(ctx, 2, 0);
            modbus_set_error_recovery(ctx, MODBUS_ERROR_RECOVERY_PROTOCOL);
            if (modbus_connect(ctx) == -1) { fail("modbus_connect"); modbus_free(ctx); continue; }
            contexts[id] = ctx;
            printf("ok\n");
            continue;
        }
        if (strcmp(command, "durable") == 0) {
            static char path[4096], tmp[4200], dir[4096];
            static char data[4 << 20];
            long bytes;
            if (sscanf(line, "%*s %4095s %ld", path, &bytes) != 2 || bytes < 0 || bytes > (long)sizeof data) {
                printf("err bad durable line\n");
                continue;
            }
            snprintf(tmp, sizeof tmp, "%s.tmp", path);
            snprintf(dir, sizeof dir, "%s", path);
            long long t0 = now_ns();
            memset(data, 'x', (size_t)bytes);
            int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
            if (fd < 0) { printf("err open %s: %s\n", tmp, strerror(errno)); continue; }
            long done = 0;
            while (done < bytes) {
                ssize_t n = write(fd, data + done, (size_t)(bytes - done));
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) break;
                done += n;
            }
            int ok = done == bytes && fsync(fd) == 0;
            ok = close(fd) == 0 && ok;
            ok = ok && rename(tmp, path) == 0;
            int dfd = ok ? open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
            ok = ok && dfd >= 0 && fsync(dfd) == 0;
            if (dfd >= 0) close(dfd);
            long long elapsed = now_ns() - t0;
            if (!ok) { printf("err durable write of %s: %s\n", path, strerror(errno)); continue; }
            printf("ok %lld\n", elapsed);
            continue;
        }
        if (strcmp(command, "windowplan") == 0 || strcmp(command, "logwindowplan") == 0) {
            static char kind[MAX_PLAN];
            static char logPath[4096];
            int offset = 0, logged = command[0] == 'l', fd = -1;
            long intent = 0, outcome = 0;
            if ((logged ? sscanf(line, "%*s %d %d %4095s %ld %ld %n", &id, &unit, logPath, &intent, &outcome, &offset) != 5
                        : sscanf(line, "%*s %d %d %n", &id, &unit, &offset) != 2)
                || !context(id)) {
                printf("err bad plan line\n");
                continue;
            }
            if (logged) {
                if ((fd = log_fd(logPath)) < 0) { printf("err open %s: %s\n", logPath, strerror(errno)); continue; }
                log_reset_if_large(fd);
            }
            int n = 0, bad = 0;
            for (char *item = strtok(line + offset, ",\n"); item && !bad; item = strtok(NULL, ",\n")) {
                if (n == MAX_PLAN || (item[0] != 'w' && item[0] != 'r')
                    || sscanf(item + 1, "%ld:%ld", &planAddress[n], &planCount[n]) != 2 || planCount[n] < 1
                    || planCount[n] > (item[0] == 'w' ? 123 : 125)) bad = 1;
                else kind[n++] = item[0];
            }
            if (bad || n == 0) { printf("err bad plan\n"); continue; }
            modbus_t *ctx = context(id);
            modbus_set_slave(ctx, unit);
            long requests = 0, mismatches = 0;
            int ok = 1, wrote = 0;
            long long t0 = now_ns();
            /* The intent is durable before the first frame. */
            if (logged && append_durably(fd, intent) != 0) { printf("err intent: %s\n", strerror(errno)); continue; }
            for (int i = 0; i < n && ok; i++) {
                int a = (int)planAddress[i], count = (int)planCount[i];
                for (int k = 0; k < count; k++) values[k] = bench_value(a + k);
                requests++;
                if (kind[i] == 'w') {
                    if (modbus_write_registers(ctx, a, count, values) != count) { fail("write"); ok = 0; }
                    wrote = 1;
                } else {
                    /* The snapshot (reads before the first write) is not compared: it is whatever the
                       device held, e.g. the value a capture's run changed. */
                    if (modbus_read_registers(ctx, a, count, buffer) != count) { fail("read"); ok = 0; }
                    else if (wrote && memcmp(values, buffer, (size_t)count * sizeof(uint16_t)) != 0) mismatches++;
                }
            }
            /* The outcome and the device state, after the read-back, in one durable write. */
            if (ok && logged && append_durably(fd, outcome) != 0) { printf("err outcome: %s\n", strerror(errno)); continue; }
            long long elapsed = now_ns() - t0;
            if (!ok) continue;
            printf("ok %lld %ld %ld\n", elapsed, requests, mismatches);
            continue;
        }
        if (strcmp(command, "readplan") == 0 || strcmp(command, "replayplan") == 0
            || strcmp(command, "logreadplan") == 0) {
            int replay = command[1] == 'e' && command[2] == 'p';
            static char logPath[4096];
            int logged = command[0] == 'l', fd = -1;
            long record = 0;
            char *plan = NULL;
            int offset = 0;
            if ((logged ? sscanf(line, "%*s %d %d %4095s %ld %n", &id, &unit, logPath, &record, &offset) != 4
                        : sscanf(line, "%*s %d %d %n", &id, &unit, &offset) != 2)
                || !context(id)) {
                printf("err bad plan line\n");
                continue;
            }
            if (logged) {
                if ((fd = log_fd(logPath)) < 0) { printf("err open %s: %s\n", logPath, strerror(errno)); continue; }
                log_reset_if_large(fd);
            }
            plan = line + offset;
            int n = 0, bad = 0;
            for (char *item = strtok(plan, ",\n"); item && !bad; item = strtok(NULL, ",\n")) {
                if (n == MAX_PLAN || sscanf(item, "%ld:%ld", &planAddress[n], &planCount[n]) != 2 || planCount[n] < 1
                    || planCount[n] > (replay ? 123 : 125)) bad = 1;
                else n++;
            }
            if (bad || n == 0) { printf("err bad plan\n"); continue; }
            modbus_t *ctx = context(id);
            modbus_set_slave(ctx, unit);
            long requests = 0, mismatches = 0;
            int ok = 1;
            long long t0 = now_ns();
            for (int i = 0; i < n && ok; i++) {
                int a = (int)planAddress[i], count = (int)planCount[i];
                if (replay) {
                    for (int k = 0; k < count; k++) values[k] = bench_value(a + k);
                    requests++;
                    if (modbus_write_registers(ctx, a, count, values) != count) { fail("write"); ok = 0; break; }
                }
                requests++;
                if (modbus_read_registers(ctx, a, count, buffer) != count) { fail(replay ? "read back" : "read"); ok = 0; break; }
                if (replay && memcmp(values, buffer, (size_t)count * sizeof(uint16_t)) != 0) mismatches++;
            }
            /* The version and its audit record, written together: one fsync. */
            if (ok && logged && append_durably(fd, record) != 0) { printf("err record: %s\n", strerror(errno)); continue; }
            long long elapsed = now_ns() - t0;
            if (!ok) continue;
            if (replay) printf("ok %lld %ld %ld\n", elapsed, requests, mismatches);
            else printf("ok %lld %ld\n", elapsed, requests);
            continue;
        }
        int isReplay = strcmp(command, "replay") == 0;
        int isRead = strcmp(command, "read") == 0;
        int isPerRegRead = strcmp(command, "perreg-read") == 0;
        int isPerRegReplay = strcmp(command, "perreg-replay") == 0;
        int fields = sscanf(line, "%*s %d %d %ld %ld %ld", &id, &unit, &start, &count, &max);
        modbus_t *ctx = context(id);
        if (!(isReplay || isRead || isPerRegRead || isPerRegReplay) || fields < 4 || !ctx) {
            printf("err bad command line: %s", line);
            continue;
        }
        if ((isRead || isReplay) && (fields != 5 || max < 1 || max > (isRead ? 125 : 123))) {
            printf("err bad chunk size\n");
            continue;
        }
        modbus_set_slave(ctx, unit);
        long requests = 0, mismatches = 0;
        int ok = 1;
        long long t0 = now_ns();
        if (isRead) {
            for (long a = start; a < start + count && ok; a += max) {
                int n = (int)(start + count - a < max ? start + count - a : max);
                requests++;
                if (modbus_read_registers(ctx, (int)a, n, buffer) != n) { fail("read"); ok = 0; }
            }
        } else if (isReplay) {
            for (long a = start; a < start + count && ok; a += max) {
                int n = (int)(start + count - a < max ? start + count - a : max);
                for (int i = 0; i < n; i++) values[i] = bench_value(a + i);
                requests++;
                if (modbus_write_registers(ctx, (int)a, n, values) != n) { fail("write"); ok = 0; break; }
                requests++;
                if (modbus_read_registers(ctx, (int)a, n, buffer) != n) { fail("read back"); ok = 0; break; }
                if (memcmp(values, buffer, (size_t)n * sizeof(uint16_t)) != 0) mismatches++;
            }
        } else if (isPerRegRead) {
            for (long a = start; a < start + count && ok; a++) {
                requests++;
                if (modbus_read_registers(ctx, (int)a, 1, buffer) != 1) { fail("read"); ok = 0; }
            }
        } else {
            for (long a = start; a < start + count && ok; a++) {
                requests++;
                if (modbus_write_register(ctx, (int)a, bench_value(a)) != 1) { fail("write"); ok = 0; break; }
                requests++;
                if (modbus_read_registers(ctx, (int)a, 1, buffer) != 1) { fail("read back"); ok = 0; break; }
                if (buffer[0] != bench_value(a)) mismatches++;
            }
        }
        long long elapsed = now_ns() - t0;
        if (!ok) continue;
        if (isRead || isPerRegRead) printf("ok %lld %ld\n", elapsed, requests);
        else printf("ok %lld %ld %ld\n", elapsed, requests, mismatches);
    }
    for (int i = 0; i < MAX_CONTEXTS; i++) {
        if (contexts[i]) { modbus_close(contexts[i]); modbus_free(contexts[i]); }
    }
    return 0;
}
