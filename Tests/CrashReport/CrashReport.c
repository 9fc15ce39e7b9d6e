#define _GNU_SOURCE
#include "CrashReport.h"
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static const int signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};
#define NSIGNALS (sizeof signals / sizeof signals[0])
static struct sigaction previous[NSIGNALS];
static volatile sig_atomic_t reporting = 0;
static char symbolizer[512];
/// The executable's path as the loader names it (argv[0] of this process, resolved).
static char program[1024];

static void say(const char *text) { (void)!write(2, text, strlen(text)); }

static void say_number(unsigned long value, int base) {
    char digits[32];
    int n = 0;
    do {
        int d = (int)(value % (unsigned long)base);
        digits[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        value /= (unsigned long)base;
    } while (value && n < 31);
    char out[34];
    int k = 0;
    if (base == 16) { out[k++] = '0'; out[k++] = 'x'; }
    while (n) out[k++] = digits[--n];
    (void)!write(2, out, (size_t)k);
}

/// Prints each frame as function at file:line: llvm-symbolizer reads "CODE image offset" lines (the
/// offset from the image's load address, dladdr's dli_fbase) on its standard input.
static void symbolize(void **frames, int count, int exact) {
    int lines[2];
    if (pipe(lines) != 0) return;
    // The raw system call, not glibc's fork(): that takes malloc's locks first, and a crash inside malloc (heap
    // corruption) holds one already — the report then hung the test process forever instead of ending it.
    pid_t child = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
    if (child < 0) {
        close(lines[0]);
        close(lines[1]);
        backtrace_symbols_fd(frames, count, 2);
        return;
    }
    if (child == 0) {
        dup2(lines[0], 0);
        dup2(2, 1);
        close(lines[0]);
        close(lines[1]);
        char *argv[] = {symbolizer, "--demangle", "--functions=short", "--inlining=false", NULL};
        execv(symbolizer, argv);
        _exit(127);
    }
    close(lines[0]);
    for (int i = 0; i < count; i++) {
        Dl_info where;
        char line[1200];
        if (dladdr(frames[i], &where) && where.dli_fbase) {
            // The executable itself is named by the loader as "" or its argv[0].
            const char *image = where.dli_fname && where.dli_fname[0] == '/' ? where.dli_fname : program;
            // A return address points after the call: look up the call itself (the interrupted
            // instruction, frame `exact`, is where it is).
            unsigned long offset = (unsigned long)frames[i] - (unsigned long)where.dli_fbase - (i != exact ? 1 : 0);
            snprintf(line, sizeof line, "CODE \"%s\" 0x%lx\n", image, offset);
        } else {
            snprintf(line, sizeof line, "CODE \"%s\" %p\n", program, frames[i]);
        }
        (void)!write(lines[1], line, strlen(line));
    }
    close(lines[1]);
    int status;
    waitpid(child, &status, 0);
}

static void handler(int sig, siginfo_t *info, void *context) {
    if (!reporting) {
        reporting = 1;
        // Whatever the report meets (a lock held by the crashed code), the process ends within 30 s: a crashed
        // test run fails, it never hangs.
        alarm(30);
        char name[32] = "?";
        pthread_getname_np(pthread_self(), name, sizeof name);
        say("\n=== crash-report: signal ");
        say_number((unsigned long)sig, 10);
        say(" (");
        say(strsignal(sig));
        say(") on thread ");
        say_number((unsigned long)syscall(SYS_gettid), 10);
        say(" \"");
        say(name);
        say("\" ===\n");
        void *frames[64];
        int count = backtrace(frames, 64);
        // Start at the interrupted instruction: the frames before it are this handler and the kernel's
        // signal trampoline.
        int first = 0;
#if defined(__x86_64__)
        void *pc = (void *)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
        for (int i = 0; i < count; i++)
            if (frames[i] == pc) first = i;
#endif
        if (symbolizer[0])
            symbolize(frames + first, count - first, 0);
        else
            backtrace_symbols_fd(frames + first, count - first, 2);
        say("=== end of crash-report ===\n");
    }
    // Hand the signal on: to whoever had it before (the Swift backtracer), or the default action.
    for (unsigned i = 0; i < NSIGNALS; i++) {
        if (signals[i] != sig) continue;
        struct sigaction *old = &previous[i];
        if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
            old->sa_sigaction(sig, info, context);
            return;
        }
        if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN && old->sa_handler) {
            old->sa_handler(sig);
            return;
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void crash_report_install(void) {
    const char *candidates[] = {"/opt/swift/usr/bin/llvm-symbolizer", "/usr/bin/llvm-symbolizer"};
    for (unsigned i = 0; i < 2; i++) {
        if (access(candidates[i], X_OK) == 0) {
            strncpy(symbolizer, candidates[i], sizeof symbolizer - 1);
            break;
        }
    }
    ssize_t n = readlink("/proc/self/exe", program, sizeof program - 1);
    program[n > 0 ? n : 0] = 0;
    void *warm[4];
    backtrace(warm, 4);  // loads the unwinder now, not inside a signal handler
    // The handler runs on an alternate stack so a stack overflow is reported too.
    static char stack[1 << 16];
    stack_t alt = {.ss_sp = stack, .ss_size = sizeof stack, .ss_flags = 0};
    sigaltstack(&alt, NULL);
    for (unsigned i = 0; i < NSIGNALS; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = handler;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(signals[i], &action, &previous[i]);
    }
}

__attribute__((constructor)) static void crash_report_at_load(void) {
    if (getenv("LASTSET_NO_CRASH_REPORT")) return;
    crash_report_install();
}
