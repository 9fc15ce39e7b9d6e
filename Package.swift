// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Lastset",
    products: [
        .executable(name: "lastsetd", targets: ["lastsetd"]),
        .executable(name: "lastset", targets: ["lastset"]),
        .executable(name: "lastset-sim", targets: ["lastset-sim"]),
    ],
    targets: [
        // C libraries from Debian, each wrapped by exactly one Swift module.
        .systemLibrary(name: "CModbus", pkgConfig: "libmodbus", providers: [.apt(["libmodbus-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CNettle", pkgConfig: "nettle", providers: [.apt(["nettle-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CPangoCairo", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),

        // Generic formats that never learn the domain: the JSON value, strict parser and writer, property lists,
        // keyed archives, SHA-256 (nettle's: a pure function), time and duration text.
        .target(name: "LastsetFormats", dependencies: ["CNettle"]),
        // Small system helpers: the serial executor over a DispatchQueue, the service group, socket addresses, host:port.
        .target(name: "LastsetSystem"),
        // Pure logic: no I/O; the domain (registers, config, planning, replay, templates, audit, API bodies).
        .target(name: "LastsetCore", dependencies: ["LastsetFormats", "LastsetSystem"]),
        // Modbus client and slave over libmodbus; the only importer of CModbus.
        .target(name: "ModbusLink", dependencies: ["CModbus", "LastsetCore", "LastsetSystem"]),
        // The SQLite database owner (one group-committing writer, reader connections); the only importer of CSQLite.
        .target(name: "LastsetStore", dependencies: ["CSQLite"]),
        // Capture, archive, replay, audit; its records live in the data directory's database (LastsetStore).
        .target(
            name: "LastsetEngine", dependencies: ["LastsetFormats", "LastsetCore", "ModbusLink", "LastsetStore", "LastsetSystem"]),
        // Hand-over certificates as PDF, laid out with pango on cairo; the only importer of CPangoCairo.
        .target(name: "LastsetPDF", dependencies: ["CPangoCairo", "LastsetCore", "LastsetFormats"]),
        // The fleet: templates and audit records shared through a git hub; the only module that runs git.
        .target(name: "LastsetFleet", dependencies: ["LastsetFormats", "LastsetCore", "LastsetEngine", "LastsetSystem"]),
        // HTTP server over libmicrohttpd; the only importer of CMicroHTTPD.
        .target(name: "LastsetHTTP", dependencies: ["LastsetFormats", "CMicroHTTPD", "LastsetCore", "LastsetSystem"]),
        // The CLI's HTTP/1.1 client for the control API.
        .target(name: "LastsetClient", dependencies: ["LastsetSystem"]),
        // The daemon's services: API routes, poller, systemd notify, signals, logging.
        .target(
            name: "LastsetService",
            dependencies: [
                "LastsetFormats", "LastsetCore", "LastsetEngine", "LastsetFleet", "LastsetHTTP", "ModbusLink", "LastsetClient",
                "LastsetSystem", "LastsetPDF",
            ]),

        .executableTarget(name: "lastsetd", dependencies: ["LastsetService"]),
        .executableTarget(name: "lastset", dependencies: ["LastsetFormats", "LastsetCore", "LastsetClient", "LastsetSystem"]),
        .executableTarget(name: "lastset-sim", dependencies: ["LastsetCore", "ModbusLink", "LastsetSystem"]),

        // Benchmarks (make bench): not a test target, never run by `swift test`.
        .executableTarget(
            name: "lastset-bench", dependencies: ["LastsetEngine", "LastsetCore", "ModbusLink", "LastsetClient"],
            path: "Benchmarks/LastsetBench"),
        // make bench-fleet: the per-capture cost of the fleet commit and a 200 pages × 20 versions sync.
        .executableTarget(
            name: "lastset-fleet-bench", dependencies: ["LastsetFleet", "LastsetEngine", "LastsetCore"],
            path: "Benchmarks/FleetBench"),
        // Writes templates in a loop until killed: the crash-consistency test's victim.
        .executableTarget(
            name: "lastset-archive-stress", dependencies: ["LastsetEngine", "LastsetCore"], path: "Tests/ArchiveStress"),
        // Runs scripted writes on a Database: the victim of the database tests' syscall traces and fault library.
        .executableTarget(name: "crash-report-probe", dependencies: ["CrashReport"], path: "Tests/CrashReportProbe"),
        .executableTarget(name: "lastset-store-probe", dependencies: ["LastsetStore"], path: "Tests/StoreProbe"),

        // Fuzz targets: one entry point per input format, driven by libFuzzer (make fuzz) and, on the seed
        // corpus Fuzz/corpus/<name>/, by FuzzCorpusTests in the normal suite.
        .target(name: "FuzzTargets", dependencies: ["LastsetFormats", "LastsetCore"], path: "Fuzz/Targets"),
        .executableTarget(name: "lastset-fuzz", dependencies: ["FuzzTargets"], path: "Fuzz/Driver"),
        .testTarget(name: "FuzzCorpusTests", dependencies: ["FuzzTargets", "LastsetCore"], path: "Tests/FuzzCorpusTests"),

        .testTarget(name: "LastsetCoreTests", dependencies: ["LastsetFormats", "LastsetCore", "TestSupport"]),
        .testTarget(name: "LastsetSystemTests", dependencies: ["LastsetSystem", "TestSupport"]),
        // The test support's own tests (the program runner, ports).
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),
        // Helpers shared by the test targets: peer processes, socat pty pairs, built binaries.
        .target(name: "TestSupport", dependencies: ["LastsetCore", "LastsetSystem", "CrashReport"], path: "Tests/TestSupport"),
        // The test process's crash report (signal, thread, symbolized frames), installed when it loads.
        .target(name: "CrashReport", path: "Tests/CrashReport"),
        .testTarget(name: "ModbusLinkTests", dependencies: ["ModbusLink", "LastsetCore", "TestSupport"]),
        .testTarget(name: "LastsetFleetTests", dependencies: ["LastsetFleet", "LastsetEngine", "LastsetCore", "TestSupport"]),
        .testTarget(name: "LastsetStoreTests", dependencies: ["LastsetStore", "TestSupport"]),
        .testTarget(name: "LastsetEngineTests", dependencies: ["LastsetEngine", "LastsetCore", "ModbusLink", "TestSupport"]),
        .testTarget(
            name: "LastsetHTTPTests",
            dependencies: ["LastsetHTTP", "LastsetService", "LastsetClient", "LastsetSystem", "TestSupport"]),
        .testTarget(
            name: "LastsetServiceTests",
            dependencies: ["LastsetService", "LastsetCore", "LastsetHTTP", "LastsetSystem", "TestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["LastsetFormats", "LastsetCore", "LastsetClient", "LastsetSystem", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["lastset", "LastsetCore", "LastsetHTTP", "LastsetSystem", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
