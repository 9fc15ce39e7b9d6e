import Foundation
import LastsetCore
import LastsetFormats
import Synchronization
import TestSupport
import XCTest

/// The legacy iOS app's archives: built as iOS writes them (by Python's plistlib, an independent
/// writer, in binary and XML; and by hand for the damaged cases), imported or refused with a clear
/// message, never a crash; and exported back in a form plistlib reads as the same archive.
final class IOSArchiveTests: XCTestCase {
    static let page = CompiledPage(definition)

    static let definition = PageDefinition(
        id: "heating", title: "Heating",
        identity: [IdentityRegister(registerId: "model", address: 0, type: .string(8))],
        registers: [
            RegisterDefinition(registerId: "heating.mode", name: "Mode", address: 100, type: .u16, enum: [0, 1, 2]),
            RegisterDefinition(
                registerId: "heating.setpoint", name: "Température", address: 101, type: .s16, min: -200, max: 900),
            RegisterDefinition(registerId: "heating.energy", address: 102, type: .u32, wordOrder: .little),
            RegisterDefinition(registerId: "heating.spare", address: 104, type: .u16),
            RegisterDefinition(registerId: "heating.label", address: 110, type: .string(16)),
            RegisterDefinition(registerId: "heating.hysteresis", address: 120, type: .u16, max: 50),
            RegisterDefinition(registerId: "comm.unit", address: 200, type: .u16, clone: false),
        ])

    static let model = [
        RecordedValue(registerId: "model", address: 0, valueData: "5052532D32303000", value: .text("PRS-200"))
    ]

    /// One register as the Python builder takes it.
    struct Spec: Encodable {
        var address: Int?
        var valueData: String?
        var lastDate: Double?
        var name: String?
        var registerId: String?
        /// NSMutableData ({NS.data}) instead of inline data.
        var mutableData = false
        /// NSMutableString ({NS.string}) instead of inline strings.
        var mutableString = false
        /// `address` archived as an NSNumber object (a reference) instead of inline.
        var addressObject = false
    }

    static let label = Array("Line 3".utf8).hexString + String(repeating: "00", count: 10)

    static let specs: [Spec] = [
        Spec(address: 100, valueData: "0002", lastDate: 786_000_000.5, name: "Mode", registerId: "heating.mode"),
        Spec(
            address: 101, valueData: "FF6A", lastDate: nil, name: "Température", registerId: "heating.setpoint",
            mutableData: true),
        Spec(
            address: 102, valueData: "E2400001", lastDate: 786_000_001, name: nil, registerId: "heating.energy",
            addressObject: true),
        Spec(address: 104, valueData: nil, lastDate: 786_000_002, name: "Spare", registerId: "heating.spare"),
        Spec(
            address: 110, valueData: label, lastDate: 786_000_003, name: "Label", registerId: "heating.label", mutableString: true
        ),
        Spec(address: 120, valueData: "FFFF", lastDate: 786_000_004, name: "Hysteresis", registerId: "heating.hysteresis"),
        Spec(address: 200, valueData: "0011", lastDate: 786_000_005, name: "Unit id", registerId: "comm.unit"),
    ]

    /// Builds an NSKeyedArchiver archive with plistlib the way `archiveRootObject:toFile:` lays it out.
    static let builder = #"""
        import json, plistlib, sys
        from plistlib import UID
        specs = json.loads(sys.argv[1]); fmt = sys.argv[3]; mutable = sys.argv[4] == "1"
        objs = ["$null", None]; classes = {}
        def cls(chain):
            if chain[0] not in classes:
                objs.append({"$classname": chain[0], "$classes": chain}); classes[chain[0]] = UID(len(objs) - 1)
            return classes[chain[0]]
        def add(o):
            objs.append(o); return UID(len(objs) - 1)
        members = []
        for s in specs:
            me = len(objs); objs.append(None); members.append(UID(me))
            d = {}
            if s.get("address") is not None:
                d["address"] = add(s["address"]) if s["addressObject"] else s["address"]
            v = s.get("valueData")
            if v is None: d["valueData"] = UID(0)
            elif s["mutableData"]: d["valueData"] = add({"NS.data": bytes.fromhex(v), "$class": cls(["NSMutableData", "NSData", "NSObject"])})
            else: d["valueData"] = add(bytes.fromhex(v))
            t = s.get("lastDate")
            d["lastDate"] = UID(0) if t is None else add({"NS.time": float(t), "$class": cls(["NSDate", "NSObject"])})
            for key in ("name", "registerId"):
                x = s.get(key)
                if x is None: d[key] = UID(0)
                elif s["mutableString"]: d[key] = add({"NS.string": x, "$class": cls(["NSMutableString", "NSString", "NSObject"])})
                else: d[key] = add(x)
            d["$class"] = cls(["SARegister", "NSObject"])
            objs[me] = d
        chain = ["NSMutableArray", "NSArray", "NSObject"] if mutable else ["NSArray", "NSObject"]
        objs[1] = {"NS.objects": members, "$class": cls(chain)}
        top = {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": UID(1)}, "$objects": objs}
        # plistlib writes UIDs only in binary; XML archives spell them {CF$UID: n}, as Foundation does.
        def xml(v):
            if isinstance(v, UID): return {"CF$UID": v.data}
            if isinstance(v, dict): return {k: xml(x) for k, x in v.items()}
            if isinstance(v, list): return [xml(x) for x in v]
            return v
        if fmt != "binary": top = xml(top)
        with open(sys.argv[2], "wb") as f:
            plistlib.dump(top, f, fmt=plistlib.FMT_BINARY if fmt == "binary" else plistlib.FMT_XML, sort_keys=False)
        """#

    /// Reads an archive with plistlib and prints its registers as JSON (the independent reader).
    static let reader = #"""
        import json, plistlib, sys
        from plistlib import UID
        top = plistlib.load(open(sys.argv[1], "rb"))
        assert top["$archiver"] == "NSKeyedArchiver" and top["$version"] == 100000, top
        objs = top["$objects"]; assert objs[0] == "$null"
        def o(u): assert isinstance(u, UID), u; return objs[u.data]
        root = o(top["$top"]["root"])
        rc = o(root["$class"])
        out = {"rootClass": rc["$classname"], "rootClasses": rc["$classes"], "registers": []}
        for m in root["NS.objects"]:
            r = o(m); c = o(r["$class"])
            def val(k):
                x = o(r[k]); return None if x == "$null" else x
            date = val("lastDate")
            out["registers"].append({
                "class": c["$classname"], "classes": c["$classes"], "address": r["address"],
                "valueData": None if val("valueData") is None else val("valueData").hex().upper(),
                "lastDate": None if date is None else [date["NS.time"], o(date["$class"])["$classname"]],
                "name": val("name"), "registerId": val("registerId")})
        print(json.dumps(out, sort_keys=True))
        """#

    private func python(_ arguments: [String]) throws -> String {
        let run = try ProgramRun.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + arguments)
        guard run.status == 0 else { throw TestSupportError("python3 exited \(run.status): \(run.stderr)") }
        return run.stdout
    }

    private func temporaryFile(_ name: String) -> URL {
        TestPaths.temporaryFile(name, prefix: "iosarchive")
    }

    /// The archive plistlib writes for `specs`.
    func pythonArchive(_ specs: [Spec], format: String, mutable: Bool = true) throws -> [UInt8] {
        let json = String(decoding: try JSONEncoder().encode(specs), as: UTF8.self)
        let key = "\(format) \(mutable) \(json)"
        // Each Python start costs ~0.1 s; several tests use the same archives.
        if let done = Self.built.withLock({ $0[key] }) { return done }
        let url = temporaryFile("\(format)-\(mutable).plist")
        defer { try? FileManager.default.removeItem(at: url) }
        _ = try python(["-c", Self.builder, json, url.path, format, mutable ? "1" : "0"])
        let bytes = [UInt8](try Data(contentsOf: url))
        Self.built.withLock { $0[key] = bytes }
        return bytes
    }

    private static let built = Mutex<[String: [UInt8]]>([:])

    func importFixture(_ bytes: [UInt8], page: CompiledPage = page) throws(IOSArchiveError) -> Template {
        try IOSArchive.template(
            archive: bytes, page: page, identity: Self.model, file: "Heating", who: "uid:0",
            importedAt: Date(timeIntervalSince1970: 1_800_000_000))
    }

    func testArchivesAsIOSWritesThemImportBinaryAndXML() throws {
        let binary = try pythonArchive(Self.specs, format: "binary")
        XCTAssertEqual(Array(binary.prefix(8)), Array("bplist00".utf8))
        let xml = try pythonArchive(Self.specs, format: "xml", mutable: false)
        XCTAssertTrue(String(decoding: xml, as: UTF8.self).contains("<key>CF$UID</key>"))
        for bytes in [binary, xml] {
            XCTAssertTrue(IOSArchive.recognises(bytes))
            let t = try importFixture(bytes)
            let ref = Date(timeIntervalSinceReferenceDate: 0)
            XCTAssertEqual(
                t.entries,
                [
                    TemplateEntry(
                        registerId: "heating.mode", address: 100, length: 1, valueData: "0002", value: .unsigned(2),
                        lastDate: ref.addingTimeInterval(786_000_000.5),
                        layout: EntryLayout(Self.page.register("heating.mode")!)),
                    // A nil lastDate: the archive's newest.
                    TemplateEntry(
                        registerId: "heating.setpoint", address: 101, length: 1, valueData: "FF6A", value: .signed(-150),
                        lastDate: ref.addingTimeInterval(786_000_005),
                        layout: EntryLayout(Self.page.register("heating.setpoint")!)),
                    TemplateEntry(
                        registerId: "heating.energy", address: 102, length: 2, valueData: "E2400001", value: .unsigned(123_456),
                        lastDate: ref.addingTimeInterval(786_000_001),
                        layout: EntryLayout(Self.page.register("heating.energy")!)),
                    TemplateEntry(
                        registerId: "heating.label", address: 110, length: 8, valueData: Self.label, value: .text("Line 3"),
                        lastDate: ref.addingTimeInterval(786_000_003),
                        layout: EntryLayout(Self.page.register("heating.label")!)),
                ])
            XCTAssertEqual(
                t.skipped,
                [
                    SkippedRegister(registerId: "heating.spare", address: 104, reason: .unset),
                    SkippedRegister(registerId: "heating.hysteresis", address: 120, reason: .unset),
                    SkippedRegister(registerId: "comm.unit", address: 200, reason: .notCloned),
                ])
            XCTAssertEqual(t.capturedAt, ref.addingTimeInterval(786_000_005))
            XCTAssertEqual(t.pageHash, Self.page.hash)
            XCTAssertEqual(t.source.identity, Self.model)
            XCTAssertEqual(t.source.endpoint, "ios-archive:Heating")
            XCTAssertEqual(t.provenance, "imported from iOS archive Heating (7 entries)")
            // Archived like any template: the file round trip keeps it.
            XCTAssertEqual(try TemplateFile.decode(TemplateFile.encode(t)), t)
        }
    }

    func testEveryProblemIsNamedWithEntryIndexAndRegisterId() throws {
        var specs = Self.specs
        specs[0].registerId = "heating.nosuch"
        specs[1].valueData = "FF6A00"
        specs[2].address = 103
        specs[4].valueData = "00"
        specs.append(Spec(address: 120, valueData: "0033", lastDate: nil, name: "again", registerId: "heating.hysteresis"))
        specs.append(Spec(address: 300, valueData: "0001", lastDate: nil, name: "anonymous", registerId: nil))
        specs[5].valueData = "0033"
        let bytes = try pythonArchive(specs, format: "binary")
        XCTAssertThrowsError(try importFixture(bytes)) { error in
            XCTAssertEqual(
                (error as? IOSArchiveError)?.problems.map(\.description),
                [
                    #"entry 0 (registerId "heating.nosuch"): page "heating" has no register with this registerId"#,
                    #"entry 1 (registerId "heating.setpoint"): valueData is 3 bytes; heating.setpoint is s16 (2 bytes, 1 register)"#,
                    #"entry 2 (registerId "heating.energy"): address is 103; the page has heating.energy at 102"#,
                    #"entry 4 (registerId "heating.label"): valueData is 1 bytes; heating.label is string(16) (16 bytes, 8 registers)"#,
                    #"entry 5 (registerId "heating.hysteresis"): value 51 (0x0033) above max 50"#,
                    #"entry 7 (registerId "heating.hysteresis"): registerId appears a second time (first at entry 5)"#,
                    "entry 8: registerId is nil, so the entry cannot be matched to a register (address 300)",
                ])
        }
    }

    func testIdentityIsRequiredWhenThePageDeclaresIt() throws {
        let bytes = try pythonArchive(Self.specs, format: "binary")
        XCTAssertThrowsError(
            try IOSArchive.template(
                archive: bytes, page: Self.page, identity: [], file: "Heating", who: nil, importedAt: Date())
        ) { error in
            XCTAssertEqual(
                (error as? IOSArchiveError)?.description,
                #"page "heating" declares identity registers (model) and an iOS archive holds none: give them (--identity model=VALUE) or read them from a reference device (--identity-from DEVICE)"#
            )
        }
        XCTAssertEqual(try IOSArchive.identityValues(page: Self.page, given: [("model", "PRS-200")]), Self.model)
        XCTAssertEqual(try IOSArchive.identityValues(page: Self.page, given: []), [])
        let cases: [([(String, String)], String)] = [
            ([("serial", "1")], #"page "heating" has no identity register "serial" (it has: model)"#),
            ([("model", "PRS-200-EXTENDED")], #"identity "model" = "PRS-200-EXTENDED": text is 16 UTF-8 bytes, longer than 8"#),
        ]
        for (given, message) in cases {
            XCTAssertThrowsError(try IOSArchive.identityValues(page: Self.page, given: given)) { error in
                XCTAssertEqual((error as? IOSArchiveError)?.problems.first?.description, message)
            }
        }
    }

    func testExportReadByPlistlibAndReimportedGivesTheSameTemplate() throws {
        let imported = try importFixture(try pythonArchive(Self.specs, format: "binary"))
        let exported = IOSArchive.archive(for: imported, page: Self.page)
        let url = temporaryFile("export.plist")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(exported).write(to: url)
        let json = try python(["-c", Self.reader, url.path])
        struct Seen: Decodable, Equatable {
            struct Register: Decodable, Equatable {
                var `class`: String
                var classes: [String]
                var address: Int
                var valueData: String?
                var lastDate: [Either]?
                var name: String?
                var registerId: String?
            }
            enum Either: Decodable, Equatable {
                case number(Double)
                case text(String)
                init(from decoder: any Decoder) throws {
                    let c = try decoder.singleValueContainer()
                    if let d = try? c.decode(Double.self) { self = .number(d) } else { self = .text(try c.decode(String.self)) }
                }
            }
            var rootClass: String
            var rootClasses: [String]
            var registers: [Register]
        }
        let seen = try JSONDecoder().decode(Seen.self, from: Data(json.utf8))
        XCTAssertEqual(seen.rootClass, "NSMutableArray")
        XCTAssertEqual(seen.rootClasses, ["NSMutableArray", "NSArray", "NSObject"])
        XCTAssertEqual(seen.registers.map(\.registerId), Self.definition.registers.map(\.registerId))
        XCTAssertEqual(seen.registers.map(\.class), Array(repeating: "SARegister", count: 7))
        XCTAssertEqual(seen.registers[0].classes, ["SARegister", "NSObject"])
        XCTAssertEqual(seen.registers.map(\.address), [100, 101, 102, 104, 110, 120, 200])
        XCTAssertEqual(seen.registers.map(\.valueData), ["0002", "FF6A", "E2400001", nil, Self.label, nil, nil])
        XCTAssertEqual(seen.registers[0].lastDate, [.number(786_000_000.5), .text("NSDate")])
        XCTAssertEqual(seen.registers[1].name, "Température")
        XCTAssertNil(seen.registers[3].lastDate)

        let again = try importFixture(exported)
        XCTAssertEqual(again.entries, imported.entries)
        XCTAssertEqual(again.skipped, imported.skipped)
        XCTAssertEqual(again.capturedAt, imported.capturedAt)
        // And our reader agrees with plistlib about our writer's bytes, value for value.
        let registers = try IOSArchive.registers(exported)
        XCTAssertEqual(registers.map(\.registerId), seen.registers.map(\.registerId))
        XCTAssertEqual(registers.map { $0.valueData?.hexString }, seen.registers.map(\.valueData))
    }

    // MARK: damaged and hostile input

    /// Every prefix of a valid archive is refused with a message (a truncated copy), never a crash.
    func testEveryTruncationIsRefused() throws {
        let binary = try pythonArchive(Self.specs, format: "binary")
        let xml = try pythonArchive(Self.specs, format: "xml")
        // Every binary prefix; XML prefixes at a stride (each costs a parse of the whole text), up to the
        // end of </plist> (only the final newline may go).
        let end = xml.count - 1
        XCTAssertEqual(xml[end], 0x0A)
        for (bytes, lengths) in [(binary, Array(0..<binary.count)), (xml, Array(stride(from: 0, to: end, by: 31)) + [end - 1])] {
            for n in lengths {
                XCTAssertThrowsError(try IOSArchive.registers(Array(bytes.prefix(n))), "prefix \(n)") { error in
                    XCTAssertFalse((error as? IOSArchiveError)?.description.isEmpty ?? true)
                }
            }
        }
        XCTAssertThrowsError(try IOSArchive.registers(Array("bplist00".utf8) + [0x08])) { error in
            XCTAssertEqual(
                "\(error)",
                "not a readable iOS archive: truncated binary plist: 9 bytes, too short for an object and the 32-byte trailer")
        }
    }

    /// Every single-byte change of a valid archive is imported or refused; none traps.
    func testEveryByteFlipIsHandled() throws {
        let bytes = try pythonArchive(Array(Self.specs.prefix(3)), format: "binary")
        for i in 0..<bytes.count {
            for v: UInt8 in [0x00, 0xFF, bytes[i] ^ 0x01, bytes[i] &+ 0x10] {
                var damaged = bytes
                damaged[i] = v
                _ = try? IOSArchive.template(
                    archive: damaged, page: Self.page, identity: Self.model, file: "x", who: nil, importedAt: Date())
            }
        }
    }

    func testTenMebibytesIsRefusedClearly() {
        let big = Array("bplist00".utf8) + [UInt8](repeating: 0, count: 10 << 20 - 8)
        XCTAssertThrowsError(try IOSArchive.registers(big)) { error in
            XCTAssertEqual(
                "\(error)", "not a readable iOS archive: the file is 10485760 bytes; at most 8388608 bytes (8 MiB) are accepted")
        }
    }

    func testCyclesAreRefusedNamingTheEntry() throws {
        // An SARegister whose name is itself, and a root array that contains itself.
        var objects: [PropertyList] = [
            .string("$null"),
            .dictionary(["NS.objects": .array([.uid(2), .uid(1), .uid(4)]), "$class": .uid(6)]),
            .dictionary([
                "address": .integer(100), "valueData": .uid(3), "lastDate": .uid(0), "name": .uid(2), "registerId": .uid(0),
                "$class": .uid(5),
            ]),
            .data([0, 2]),
            .dictionary([
                "address": .integer(100), "valueData": .uid(3), "lastDate": .uid(0), "name": .uid(0),
                "registerId": .uid(99), "$class": .uid(5),
            ]),
        ]
        objects.append(KeyedArchive.classDescription(["SARegister", "NSObject"]))
        objects.append(KeyedArchive.classDescription(["NSArray", "NSObject"]))
        let bytes = PropertyListWriter.binary(KeyedArchive.envelope(objects: objects))
        XCTAssertThrowsError(try IOSArchive.registers(bytes)) { error in
            XCTAssertEqual(
                (error as? IOSArchiveError)?.problems.map(\.description),
                [
                    "entry 0: reference cycle: object 2 → 2",
                    "entry 1: reference cycle: object 1 → 1",
                    "entry 2: reference to object 99, but $objects has 7",
                ])
        }
        // A binary plist whose array contains itself (object 0 = [object 0]).
        var cyclic = Array("bplist00".utf8) + [0xA1, 0x00]
        let table = cyclic.count
        cyclic += [8]
        cyclic += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)
        cyclic += [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        XCTAssertThrowsError(try PropertyListReader.parse(cyclic)) { error in
            XCTAssertEqual("\(error)", "object 0: reference cycle (the object contains itself)")
        }
    }

    func testDeepNestingAndSharedReferencesAreBounded() throws {
        let deep = "<plist>" + String(repeating: "<array>", count: 100) + String(repeating: "</array>", count: 100) + "</plist>"
        XCTAssertThrowsError(try PropertyListReader.parse(Array(deep.utf8))) { error in
            XCTAssertEqual("\(error)", "XML plist, line 1: nested deeper than 64 levels")
        }
        // 60 arrays, each holding the next twice: 2^60 paths, read in linear time because objects are shared.
        var objects: [[UInt8]] = []
        for k in 0..<60 { objects.append([0xA2, UInt8(k + 1), UInt8(k + 1)]) }
        objects.append([0x10, 7])
        var file = Array("bplist00".utf8)
        var offsets: [Int] = []
        for o in objects {
            offsets.append(file.count)
            file += o
        }
        let table = file.count
        for o in offsets { file.append(UInt8(o)) }
        file += [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)] + [UInt8](repeating: 0, count: 8)
        file += [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        let start = Date()
        guard case .array(let top) = try PropertyListReader.parse(file) else { return XCTFail("not an array") }
        XCTAssertEqual(top.count, 2)
        XCTAssertLessThan(Date().timeIntervalSince(start), 1)
        XCTAssertThrowsError(try IOSArchive.registers(file)) { error in
            XCTAssertEqual(
                "\(error)", "not a readable iOS archive: not a keyed archive: the property list is an array, not a dictionary")
        }
    }

    func testXMLWrittenByHandWithCommentsEntitiesAndEmptyElements() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
              <key>$archiver</key><string>NSKeyedArchiver</string>
              <key>$version</key><integer>100000</integer>
              <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>
              <key>$objects</key>
              <array>
                <string>$null</string>
                <dict>
                  <key>NS.objects</key><array><dict><key>CF$UID</key><integer>2</integer></dict></array>
                  <key>$class</key><dict><key>CF$UID</key><integer>6</integer></dict>
                </dict>
                <dict>
                  <!-- written by the app -->
                  <key>address</key><integer>101</integer>
                  <key>valueData</key><dict><key>CF$UID</key><integer>3</integer></dict>
                  <key>lastDate</key><dict><key>CF$UID</key><integer>0</integer></dict>
                  <key>name</key><dict><key>CF$UID</key><integer>4</integer></dict>
                  <key>registerId</key><dict><key>CF$UID</key><integer>7</integer></dict>
                  <key>$class</key><dict><key>CF$UID</key><integer>5</integer></dict>
                </dict>
                <data>
                AAo=
                </data>
                <string>Set &amp; forget &#x263A;</string>
                <dict><key>$classname</key><string>SARegister</string><key>$classes</key><array><string>SARegister</string><string>NSObject</string></array></dict>
                <dict><key>$classname</key><string>NSArray</string><key>$classes</key><array><string>NSArray</string><string>NSObject</string></array></dict>
                <string>heating.setpoint</string>
              </array>
            </dict>
            </plist>
            """
        let registers = try IOSArchive.registers(Array(xml.utf8))
        XCTAssertEqual(
            registers,
            [
                ArchivedRegister(
                    index: 0, registerId: "heating.setpoint", name: "Set & forget ☺", address: 101, valueData: [0, 10],
                    lastDate: nil)
            ])
        let broken = xml.replacingOccurrences(of: "<integer>101</integer>", with: "<integer>1o1</integer>")
        XCTAssertThrowsError(try IOSArchive.registers(Array(broken.utf8))) { error in
            XCTAssertEqual(
                "\(error)", #"not a readable iOS archive: XML plist, line 17: <integer> "1o1" is not a 64-bit integer"#)
        }
    }

    func testWrongFieldTypesAndClassesAreNamed() throws {
        let objects: [PropertyList] = [
            .string("$null"),
            .dictionary(["NS.objects": .array([.uid(2), .uid(3)]), "$class": .uid(5)]),
            .dictionary([
                "address": .string("100"), "valueData": .uid(3), "registerId": .uid(3), "$class": .uid(4),
            ]),
            .string("heating.mode"),
            KeyedArchive.classDescription(["SARegister", "NSObject"]),
            KeyedArchive.classDescription(["NSMutableArray", "NSArray", "NSObject"]),
        ]
        let bytes = PropertyListWriter.binary(KeyedArchive.envelope(objects: objects))
        XCTAssertThrowsError(try IOSArchive.registers(bytes)) { error in
            XCTAssertEqual(
                (error as? IOSArchiveError)?.problems.map(\.description),
                [
                    #"entry 0 (registerId "heating.mode"): address is a string, expected an integer"#,
                    #"entry 0 (registerId "heating.mode"): valueData is a string, expected data"#,
                    "entry 1: is a string, not an SARegister",
                ])
        }
        let notArchive = PropertyListWriter.binary(.dictionary(["$archiver": .string("NSArchiver")]))
        XCTAssertThrowsError(try IOSArchive.registers(notArchive)) { error in
            XCTAssertEqual("\(error)", #"not a readable iOS archive: not an NSKeyedArchiver archive: $archiver is "NSArchiver""#)
        }
        XCTAssertFalse(IOSArchive.recognises(Array(#"{"format":"lastset-template"}"#.utf8)))
    }

    /// The writer's primitives, read back by the reader: integers of every width, reals, dates, long
    /// strings (count in a following integer), UTF-16, data, nested containers.
    func testWriterAndReaderAgreeOnEveryKind() throws {
        let value = PropertyList.dictionary([
            "ints": .array(
                [0, 255, 256, 65535, 65536, 4_294_967_295, 4_294_967_296, -1, Int64.min, Int64.max].map(PropertyList.integer)),
            "real": .real(-0.125), "date": .date(786_000_000.5), "yes": .bool(true), "no": .bool(false),
            "long": .string(String(repeating: "x", count: 300)), "utf16": .string("Température ☺"),
            "data": .data(Array(0..<40)), "uid": .uid(70000), "empty": .array([]),
            "nested": .dictionary(["a": .array([.string("b")])]),
        ])
        XCTAssertEqual(try PropertyListReader.parse(PropertyListWriter.binary(value)), value)
    }
}
