import Foundation

/// Builds an LD_PRELOAD fault library from C `source` with gcc into `dir`; returns its path.
public func buildFaultLibrary(_ source: String, in dir: URL) throws -> String {
    let file = dir.appendingPathComponent("fault.c")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let library = dir.appendingPathComponent("fault.so").path
    let gcc = Process()
    gcc.executableURL = URL(fileURLWithPath: "/usr/bin/gcc")
    gcc.arguments = ["-shared", "-fPIC", "-O2", "-o", library, file.path, "-ldl"]
    try gcc.run()
    guard gcc.waitForExit() == 0 else { throw TestSupportError("gcc could not build the fault library") }
    return library
}
