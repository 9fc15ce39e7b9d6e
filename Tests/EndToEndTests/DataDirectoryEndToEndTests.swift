import Foundation
import Glibc
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// An LD_PRELOAD library that logs every directory fsync (to $LASTSET_FAULT_LOG) and fails it with EIO while the
/// file $LASTSET_FAULT_DIR_FSYNC_EIO exists: a disk that refuses to confirm a rename.
private let faultLibrarySource = #"""
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <errno.h>
    #include <fcntl.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <sys/stat.h>
    #include <unistd.h>

    int fsync(int fd) {
        static int (*real_fsync)(int);
        if (!real_fsync) real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            char link[64], path[4096];
            snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
            ssize_t n = readlink(link, path, sizeof path - 1);
            path[n < 0 ? 0 : n] = 0;
            const char *log = getenv("LASTSET_FAULT_LOG");
            if (log) {
                int l = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                if (l >= 0) { dprintf(l, "%s\n", path); close(l); }
            }
            const char *flag = getenv("LASTSET_FAULT_DIR_FSYNC_EIO");
            if (flag && access(flag, F_OK) == 0) { errno = EIO; return -1; }
        }
        return real_fsync(fd);
    }
    """#


/// The data directory as the daemon sees it under disk faults and planted links.
final class DataDirectoryEndToEndTests: XCTestCase {
    private var peers: [PymodbusPeer] = []

    override func tearDown() {
        for p in peers { p.stop() }
        peers = []
    }

    private func config(port: Int) -> String {
        """
        { version: 1,
          devices: [ { id: "press-a", endpoint: "tcp://127.0.0.1:\(port)", unit: 1, pages: ["heating"] } ],
        \(DaemonEndToEndTests.pages)
        }
        """
    }

    private var hysteresis: UInt16 = 20

    /// Captures after giving the device's hysteresis a fresh value (an identical capture makes no new version).
    private func capture(_ daemon: DaemonHarness) throws -> CaptureReport {
        if let port = peers.last?.port {
            try Mbpoll.writeHolding(port: port, unit: 1, address: 120, values: [hysteresis])
            hysteresis += 1
        }
        let r = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
        return try XCTUnwrap(try daemon.decode(JobInfo.self, r).capture, r.text)
    }

    private func latestVersion(_ daemon: DaemonHarness) throws -> Int? {
        let r = try daemon.api("GET", "/v1/pages/heating/templates/latest")
        return r.status == 200 ? try daemon.decode(Template.self, r).version : nil
    }

    /// EIO on the directory fsync after the rename used to be answered "nothing archived, the previous template
    /// stays current" while the new version was in place and served as the latest. The answer now agrees with
    /// the files: archived, as that version, with the durability failure named.
    func testFailedDirectoryFsyncIsReportedAsArchivedButNotConfirmedDurable() throws {
        let p = try PymodbusPeer.startTCP(values: DaemonEndToEndTests.reference)
        peers.append(p)
        let work = try TestPaths.temporaryDirectory(prefix: "fault")
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try buildFaultLibrary(faultLibrarySource, in: work)
        let log = work.appendingPathComponent("fsync.log")
        let flag = work.appendingPathComponent("fail-now")
        let daemon = try DaemonHarness(
            config: config(port: p.port!),
            environment: ["LD_PRELOAD": library, "LASTSET_FAULT_LOG": log.path, "LASTSET_FAULT_DIR_FSYNC_EIO": flag.path])
        let data = daemon.dataDir.resolvingSymlinksInPath().path

        let first = try capture(daemon)
        XCTAssertTrue(first.archived, "\(first)")
        XCTAssertNil(first.error)
        // A new page directory, the new templates directory and a new audit log are durable only once their
        // parent directory is fsynced.
        let synced = Set(try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init))
        for dir in [data, data + "/templates", data + "/templates/heating"] {
            XCTAssertTrue(synced.contains(dir), "\(dir) never fsynced; fsynced: \(synced.sorted())")
        }

        FileManager.default.createFile(atPath: flag.path, contents: nil)
        let second = try capture(daemon)
        let latest = try latestVersion(daemon)
        XCTAssertEqual(latest, 2, "the new version is in place")
        XCTAssertTrue(second.archived, "the answer must agree with the files: \(second)")
        XCTAssertEqual(second.version, 2)
        let error = try XCTUnwrap(second.error)
        XCTAssertTrue(error.contains("not confirmed durable"), error)
        XCTAssertTrue(error.contains("Input/output error"), error)
        let record = try XCTUnwrap(try daemon.auditRecords().last)
        XCTAssertEqual(record.result, .archived)
        XCTAssertEqual(record.templateVersion, 2)
        XCTAssertTrue(record.message?.contains("not confirmed durable") ?? false, record.message ?? "nil")

        try FileManager.default.removeItem(at: flag)
        let third = try capture(daemon)
        XCTAssertEqual(third.version, 3)
        XCTAssertNil(third.error)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// A `v000002.json` planted as a symlink to a file outside the data directory used to be served; a
    /// `templates/<page>` symlink made a capture write outside. Links inside the data directory are never
    /// followed, for reads or writes.
    func testPlantedSymlinksAreNeverFollowed() throws {
        let p = try PymodbusPeer.startTCP(values: DaemonEndToEndTests.reference)
        peers.append(p)
        let daemon = try DaemonHarness(config: config(port: p.port!))
        XCTAssertEqual(try capture(daemon).version, 1)
        XCTAssertEqual(try capture(daemon).version, 2)
        let pageDir = daemon.dataDir.appendingPathComponent("templates/heating")

        // A valid version 2 moved outside the data directory and linked back in.
        let outside = daemon.dir.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let foreign = outside.appendingPathComponent("v000002.json")
        try FileManager.default.moveItem(at: pageDir.appendingPathComponent("v000002.json"), to: foreign)
        XCTAssertEqual(symlink(foreign.path, pageDir.appendingPathComponent("v000002.json").path), 0)
        for path in ["/v1/pages/heating/templates/2", "/v1/pages/heating/templates/2/file"] {
            let r = try daemon.api("GET", path)
            XCTAssertEqual(r.status, 409, "\(path): \(r.text)")
            XCTAssertTrue(r.text.contains("symbolic link"), r.text)
        }
        let apply = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", #"{"device":"press-a","dryRun":true}"#)
        XCTAssertEqual(apply.status, 409, "the latest is the link: \(apply.text)")
        let listing = try daemon.api("GET", "/v1/pages/heating/templates")
        XCTAssertTrue(listing.text.contains("symbolic link"), listing.text)

        // The page directory itself replaced by a link to outside: a capture must not write there.
        try FileManager.default.removeItem(at: pageDir)
        let elsewhere = daemon.dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(elsewhere.path, pageDir.path), 0)
        let report = try capture(daemon)
        XCTAssertFalse(report.archived, "\(report)")
        XCTAssertTrue(report.error?.contains("symbolic link") ?? false, report.error ?? "nil")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [], "nothing written outside")
        XCTAssertEqual(daemon.stop(), 0)
    }
}
