import Foundation
import LastsetCore
import XCTest
import LastsetFormats

final class TemplateFileTests: XCTestCase {
    func testTimestampsRoundTripToTheMillisecond() {
        let cases: [(Double, String)] = [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400.5, "2000-02-29T00:00:00.500Z"),
            (1_795_960_000.1234, "2026-11-29T13:46:40.123Z"),
            (4_102_444_799.999, "2099-12-31T23:59:59.999Z"),
        ]
        for (seconds, text) in cases {
            XCTAssertEqual(TimeText.iso8601(Date(timeIntervalSince1970: seconds)), text)
            let parsed = TimeText.parseISO8601(text)!
            XCTAssertEqual(parsed.timeIntervalSince1970, seconds, accuracy: 0.0006, text)
            XCTAssertEqual(TimeText.iso8601(parsed), text)
        }
        // Written, but refused when read: before 1970 is outside the accepted range (TimeTextTests).
        XCTAssertEqual(TimeText.iso8601(Date(timeIntervalSince1970: -1.001)), "1969-12-31T23:59:58.999Z")
        XCTAssertNil(TimeText.parseISO8601("1969-12-31T23:59:58.999Z"))
        XCTAssertNotNil(TimeText.parseISO8601("2026-11-29T13:46:40Z"))
        XCTAssertNil(TimeText.parseISO8601("2026-13-29T13:46:40.000Z"))
        XCTAssertNil(TimeText.parseISO8601("yesterday"))
    }

    func testSHA256MatchesKnownVectors() {
        XCTAssertEqual(SHA256.hex(Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testEncodedTemplateDecodesAndAnyEditIsDetected() throws {
        let template = Template(
            pageId: "heating", pageHash: "sha256:00", version: 3, capturedAt: Date(timeIntervalSince1970: 1_800_000_000.25),
            capturedBy: "uid:1000",
            source: TemplateSource(deviceId: nil, endpoint: "tcp://127.0.0.1:1502", unit: 7, identity: []),
            entries: [
                TemplateEntry(
                    registerId: "a", address: 1, length: 2, valueData: "0001E240", value: .unsigned(123456),
                    lastDate: Date(timeIntervalSince1970: 5)),
                TemplateEntry(
                    registerId: "b", address: 3, length: 1, valueData: "FF38", value: .signed(-200),
                    lastDate: Date(timeIntervalSince1970: 5)),
                TemplateEntry(
                    registerId: "c", address: 4, length: 2, valueData: "3FC00000", value: .float(1.5),
                    lastDate: Date(timeIntervalSince1970: 5)),
            ],
            skipped: [SkippedRegister(registerId: "u", address: 9, reason: .unset)])
        let data = TemplateFile.encode(template)
        XCTAssertEqual(try TemplateFile.decode(data), template)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("{\"format\":\"lastset-template\",\"checksum\":\"sha256:"), text)
        XCTAssertEqual(text.split(separator: "\n").count, 6, "header, template head, one line per entry, tail")
        let summary = try TemplateFile.summary(data)
        XCTAssertEqual(summary.entries, 3)
        XCTAssertEqual(summary.version, 3)
        XCTAssertEqual(summary.source, "tcp://127.0.0.1:1502")
        // The header line and the rest are each a JSON document.
        let parts = text.split(separator: "\n", maxSplits: 1)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(parts[0].utf8)))
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(parts[1].utf8)))
        for (from, to) in [
            ("FF38", "FF39"), ("\"unit\":7", "\"unit\":8"), ("heating", "cooling"),
            ("\"schemaVersion\":1", "\"schemaVersion\":2"),
            ("\"entries\":3", "\"entries\":4"), ("lastset-template", "lastset-templatf"),
        ] {
            XCTAssertTrue(text.contains(from), from)
            let edited = Data(text.replacingOccurrences(of: from, with: to).utf8)
            XCTAssertThrowsError(try TemplateFile.decode(edited), "edit \(from) → \(to) not detected")
            XCTAssertThrowsError(try TemplateFile.summary(edited), "edit \(from) → \(to) not detected in the summary")
        }
        XCTAssertThrowsError(try TemplateFile.decode(Data(text.prefix(text.count / 2).utf8)))
        XCTAssertThrowsError(try TemplateFile.decode(Data()))
    }

    func testJSONWriterOutputDecodesWithFoundation() throws {
        let strings = ["plain", "quote \" backslash \\ slash /", "tab\tnewline\ncr\r", "\u{01}\u{1F}", "ünïcødé ✓ 😀", ""]
        var w = JSONWriter()
        w.beginArray()
        for s in strings { w.string(s) }
        w.endArray()
        XCTAssertEqual(try JSONDecoder().decode([String].self, from: Data(w.bytes)), strings)
        let values: [RegisterValue] = [
            .unsigned(UInt64.max), .signed(Int64.min), .float(2.5), .float(-1e-7), .text("x\"y"), .bytes([0, 0xAB]),
        ]
        var v = JSONWriter()
        v.beginArray()
        for value in values { v.value(value) }
        v.endArray()
        XCTAssertEqual(try JSONDecoder().decode([RegisterValue].self, from: Data(v.bytes)), values)
    }

    /// SHA-256 known answers (FIPS 180-4 examples), one-shot and fed in pieces of every awkward size.
    func testSHA256KnownAnswers() {
        let cases: [(String, [UInt8])] = [
            ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", []),
            ("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", Array("abc".utf8)),
            (
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
                Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
            ),
            ("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", [UInt8](repeating: 0x61, count: 1_000_000)),
        ]
        for (expected, message) in cases {
            XCTAssertEqual(SHA256.hex(message), expected)
            for piece in [1, 3, 63, 64, 65, 1000] where message.count < 100_000 || piece >= 64 {
                var h = SHA256()
                var i = 0
                while i < message.count {
                    h.update(message[i..<min(message.count, i + piece)])
                    i += piece
                }
                XCTAssertEqual(h.finalize().hexString.lowercased(), expected, "pieces of \(piece)")
            }
        }
    }

    /// A device page's state written by `JSONWriter` decodes into the same value (every field set, and none).
    func testDevicePageStateWriterDecodesIntoTheSameValue() throws {
        let when = Date(timeIntervalSince1970: 1_800_000_000.123)
        let states = [
            DevicePageState(
                device: "tcp://127.0.0.1:5020 unit 1", pageId: "heating",
                applied: AppliedTemplate(
                    version: 3, versionId: "line-7-3", pageHash: "abc", appliedAt: when, appliedBy: "uid:0 \"x\"",
                    job: "j-1",
                    entries: [
                        RecordedValue(registerId: "a", address: 1, valueData: "0001", value: .unsigned(1)),
                        RecordedValue(registerId: "b", address: 2, valueData: "ffff", value: .signed(-1)),
                        RecordedValue(registerId: "c", address: 3, valueData: "40200000", value: .float(2.5)),
                        RecordedValue(registerId: "d", address: 5, valueData: "4142", value: .text("AB")),
                        RecordedValue(registerId: "e", address: 6, valueData: "00ab", value: .bytes([0, 0xAB])),
                    ]),
                unverified: UnverifiedMark(device: "d", pageId: "heating", since: when, job: "j-2", message: "interrupted\n")),
            DevicePageState(
                device: "press-b", pageId: "motion",
                applied: AppliedTemplate(
                    version: 1, pageHash: "h", appliedAt: when, appliedBy: "token:t", job: nil, entries: [])),
            DevicePageState(device: "press-c", pageId: "motion"),
        ]
        for s in states {
            var w = JSONWriter()
            s.write(to: &w)
            XCTAssertEqual(try APICoding.decoder().decode(DevicePageState.self, from: Data(w.bytes)), s)
        }
    }

    /// The page hash covers every field of a register: the canonical field list matches the Codable form.
    func testPageHashCoversEveryRegisterField() throws {
        let full = RegisterDefinition(
            registerId: "r", name: "R", address: 1, type: .u32, wordOrder: .little, byteOrder: .little, unset: .unsigned(0),
            min: 0,
            max: 9, enum: [1, 2], scale: 0.1, unit: "V", access: .ro, clone: false, factoryDefault: .unsigned(5),
            description: "Supply voltage")
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(full)) as! [String: Any]
        XCTAssertEqual(Set(encoded.keys), Set(RegisterDefinition.canonicalFields + RegisterDefinition.documentationFields))
        var w = JSONWriter()
        full.writeCanonical(to: &w)
        let mine = try JSONSerialization.jsonObject(with: Data(w.bytes)) as! [String: Any]
        XCTAssertEqual(Set(mine.keys), Set(RegisterDefinition.canonicalFields))
        var hashed = full
        hashed.factoryDefault = nil
        hashed.description = nil
        XCTAssertEqual(try JSONDecoder().decode(RegisterDefinition.self, from: Data(w.bytes)), hashed)
        // Documentation does not change the hash.
        XCTAssertEqual(PageDefinition(id: "p", registers: [full]).hash, PageDefinition(id: "p", registers: [hashed]).hash)
        XCTAssertEqual(
            PageDefinition(id: "p", registers: [full], description: "what it is").hash,
            PageDefinition(id: "p", registers: [full]).hash)

        let page = PageDefinition(id: "p", registers: [full])
        var changed = [PageDefinition]()
        for field in RegisterDefinition.canonicalFields {
            var r = full
            switch field {
            case "access": r.access = .rw
            case "address": r.address = 2
            case "byteOrder": r.byteOrder = .big
            case "clone": r.clone = true
            case "enum": r.enum = [1]
            case "max": r.max = 8
            case "min": r.min = 1
            case "name": r.name = "S"
            case "registerId": r.registerId = "s"
            case "scale": r.scale = 1
            case "type": r.type = .s32
            case "unit": r.unit = "A"
            case "unset": r.unset = .unsigned(1)
            case "wordOrder": r.wordOrder = .big
            default: XCTFail(field)
            }
            changed.append(PageDefinition(id: "p", registers: [r]))
        }
        changed.append(PageDefinition(id: "p", title: "T", registers: [full]))
        changed.append(PageDefinition(id: "p", beforeWrite: [WriteStep(address: 1, value: 2)], registers: [full]))
        changed.append(
            PageDefinition(
                id: "p", identity: [IdentityRegister(registerId: "m", address: 0, type: .string(8))], registers: [full]))
        let hashes = Set(changed.map(\.hash) + [page.hash])
        XCTAssertEqual(hashes.count, changed.count + 1, "some change did not change the page hash")
        XCTAssertEqual(page.hash, page.hash)
    }
}
