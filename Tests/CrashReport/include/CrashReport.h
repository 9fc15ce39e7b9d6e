// The test process's own crash report: installed when the test binary loads (a constructor), it prints
// the crashing signal, the thread and its frames symbolized with the toolchain's llvm-symbolizer, then
// hands the signal on (to the Swift backtracer or the default action). The Swift backtracer alone cannot
// unwind past the first frame in a container (it prints "..."), which left a crash on CI unnamed.
#pragma once
/// Installs the handlers again (they are installed at load; tests need not call this).
void crash_report_install(void);
