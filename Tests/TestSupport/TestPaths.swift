import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the repository, the test peers and the built binaries are, for tests.
public enum TestPaths {
    /// The repository root, found from this file's path (`<root>/Tests/TestSupport/TestPaths.swift`).
    public static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `<root>/Tests/peers`, home of the Python peers and `setup-venv.sh`.
    public static var peersDirectory: URL { repoRoot.appendingPathComponent("Tests/peers") }

    /// The directory holding the built products: the test bundle's own directory (works with any
    /// `--scratch-path`), else `$LASTSET_BIN_DIR`, else `<root>/.build/debug`.
    public static let productsDirectory: URL = {
        let fm = FileManager.default
        if let dir = ProcessInfo.processInfo.environment["LASTSET_BIN_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir)
        }
        // On Linux the XCTest bundle is itself the running executable, `<products>/<Pkg>PackageTests.xctest`.
        var candidates: [URL] = []
        if let exe = Bundle.main.executableURL { candidates.append(exe.resolvingSymlinksInPath().deletingLastPathComponent()) }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent())
        for dir in candidates where fm.fileExists(atPath: dir.appendingPathComponent("lastset-sim").path) {
            return dir
        }
        return candidates.first ?? repoRoot.appendingPathComponent(".build/debug")
    }()

    /// The built executable `name` (e.g. `lastset-sim`); throws when it was not built.
    public static func executable(_ name: String) throws(TestSupportError) -> URL {
        let url = productsDirectory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw TestSupportError("built binary \"\(name)\" not found in \(productsDirectory.path)")
        }
        return url
    }

    /// A fresh temporary directory with a short path (`mkdtemp` under /tmp): a Unix socket's path is limited to
    /// 107 bytes. Removed by the caller (`remove`).
    public static func shortTemporaryDirectory(prefix: String = "lastset") throws -> String {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return String(cString: made)
    }

    /// Removes a temporary directory and everything in it.
    public static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A fresh temporary directory, removed by the caller (or left to the OS).
    public static func temporaryDirectory(prefix: String = "lastset-test") throws(TestSupportError) -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw TestSupportError("cannot create temporary directory \(url.path): \(error)")
        }
        return url
    }

    /// A path in the temporary directory for a file a test writes, `<prefix>-<pid>-<name>` (the pid keeps test
    /// processes apart, and the name stays readable where a test shows it); the caller removes the file.
    public static func temporaryFile(_ name: String, prefix: String = "lastset") -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(getpid())-\(name)")
    }
}

/// A failure of the test harness itself (a peer did not start, a binary is missing), quoting the cause.
public struct TestSupportError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public var description: String
    /// Wraps a message.
    public init(_ description: String) { self.description = description }
}
