import Foundation
import LastsetCore
import XCTest

@testable import FuzzTargets

/// Feeds every file of the seed corpus (`Fuzz/corpus/<target>/`, with the crashes `make fuzz` found) to its
/// fuzz target in-process, as libFuzzer does: a trap fails the whole suite, so a finding stays fixed.
final class CorpusReplayTests: XCTestCase {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    private func entries(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    func testEveryCorpusFileRunsThroughItsTargetWithoutATrap() throws {
        let corpus = Self.fuzz.appendingPathComponent("corpus")
        let targets = try entries(corpus)
        XCTAssertFalse(targets.isEmpty, "no corpus under \(corpus.path)")
        var inputs = 0
        for name in targets {
            guard let target = FuzzTargets.named(name) else {
                XCTFail(
                    "Fuzz/corpus/\(name)/ has no target: expected Fuzz/Targets/\(name.prefix(1).uppercased() + name.dropFirst())FuzzTarget.swift"
                )
                continue
            }
            let files = try entries(corpus.appendingPathComponent(name))
            XCTAssertFalse(files.isEmpty, "Fuzz/corpus/\(name)/ is empty: give the target seeds")
            for file in files {
                let data = try Data(contentsOf: corpus.appendingPathComponent(name).appendingPathComponent(file))
                target.run([UInt8](data))
                inputs += 1
            }
        }
        XCTAssertGreaterThan(inputs, 0)
    }

    func testEveryTargetFileHasACorpus() throws {
        let files = try entries(Self.fuzz.appendingPathComponent("Targets")).filter {
            $0.hasSuffix("FuzzTarget.swift") && $0 != "FuzzTarget.swift"
        }
        XCTAssertGreaterThanOrEqual(files.count, 4)
        for file in files {
            let typeName = String(file.dropLast("FuzzTarget.swift".count))
            let name = typeName.prefix(1).lowercased() + typeName.dropFirst()
            XCTAssertNotNil(FuzzTargets.named(name), "\(file) must declare \(typeName)FuzzTarget with name \"\(name)\"")
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: Self.fuzz.appendingPathComponent("corpus/\(name)").path),
                "\(file) has no seed corpus Fuzz/corpus/\(name)/")
        }
    }

    func testUnknownAndMalformedNamesFindNoTarget() {
        XCTAssertNil(FuzzTargets.named("nosuch"))
        XCTAssertNil(FuzzTargets.named("Config"))
        XCTAssertNil(FuzzTargets.named("con fig"))
        XCTAssertNil(FuzzTargets.named(""))
        XCTAssertEqual(FuzzTargets.named("config")?.name, "config")
    }

    func testASealedSeedReachesTheTemplateDecoder() throws {
        let seed = try Data(contentsOf: Self.fuzz.appendingPathComponent("corpus/templateFile/sealed-heating-v1.txt"))
        let template = try TemplateFile.decode(TemplateFileFuzzTarget.sealed([UInt8](seed)))
        XCTAssertEqual(template.pageId, "heating")
    }
}
