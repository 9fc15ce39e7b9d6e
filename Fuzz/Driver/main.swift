// lastset-fuzz: runs one fuzz target (Fuzz/Targets).
//
//   lastset-fuzz TARGET FILE|DIR ...     replays inputs in-process (a normal build): reproduce a finding
//   lastset-fuzz TARGET [libFuzzer flags] [CORPUS_DIR ...]
//                                        built by `make fuzz` with -sanitize=fuzzer,address -DLASTSET_LIBFUZZER:
//                                        libFuzzer drives the target (scripts/fuzz.sh)
import Foundation
import FuzzTargets

#if canImport(Glibc)
    import Glibc
#endif

// libFuzzer's -fork/-jobs children are started with the flags only: they find the target in the environment.
let environmentKey = "LASTSET_FUZZ_TARGET"
var arguments = CommandLine.arguments
let targetName: String
if let name = ProcessInfo.processInfo.environment[environmentKey], !name.isEmpty {
    targetName = name
} else if arguments.count >= 2 {
    targetName = arguments.remove(at: 1)
    setenv(environmentKey, targetName, 1)
} else {
    targetName = ""
}
guard let target = FuzzTargets.named(targetName) else {
    FileHandle.standardError.write(
        Data("usage: lastset-fuzz TARGET [FILE|DIR ...]   (TARGET names a Fuzz/Targets/<Name>FuzzTarget.swift)\n".utf8))
    exit(64)
}

#if LASTSET_LIBFUZZER
    /// The target libFuzzer's callback feeds (set once, before the driver starts).
    nonisolated(unsafe) var selected: any FuzzTarget.Type = target

    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    // libFuzzer sees the program name and everything after TARGET.
    let driverArguments = arguments
    var cStrings: [UnsafeMutablePointer<CChar>?] = driverArguments.map { strdup($0) } + [nil]
    var argc = Int32(driverArguments.count)
    let status = cStrings.withUnsafeMutableBufferPointer { buffer in
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
        return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            selected.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
            return 0
        }
    }
    exit(status)
#else
    var files: [URL] = []
    for path in arguments.dropFirst() {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            FileHandle.standardError.write(Data("lastset-fuzz: no such file \(path)\n".utf8))
            exit(1)
        }
        if isDirectory.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            files += names.sorted().map { url.appendingPathComponent($0) }
        } else {
            files.append(url)
        }
    }
    for file in files {
        guard let data = FileManager.default.contents(atPath: file.path) else { continue }
        target.run([UInt8](data))
    }
    print("lastset-fuzz: \(target.name): \(files.count) input(s) ran without a trap")
#endif
