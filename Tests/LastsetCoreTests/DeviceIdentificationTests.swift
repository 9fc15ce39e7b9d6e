import LastsetCore
import XCTest

/// The FC43/14 answer parser, the reading across answers and the frame lengths: table-driven, no server.
final class DeviceIdentificationParsingTests: XCTestCase {
    /// An answer PDU: header, then `objects` as (id, text).
    static func answer(
        code: UInt8 = 1, conformity: UInt8 = 0x81, more: UInt8 = 0, next: UInt8 = 0, count: Int? = nil,
        _ objects: [(UInt8, String)]
    ) -> [UInt8] {
        var pdu: [UInt8] = [0x2B, 0x0E, code, conformity, more, next, UInt8(count ?? objects.count)]
        for (id, text) in objects { pdu += [id, UInt8(text.utf8.count)] + Array(text.utf8) }
        return pdu
    }

    static let basic: [(UInt8, String)] = [(0, "Acme"), (1, "PRS-200"), (2, "3.1")]

    func testAWellFormedAnswerParsesEveryObject() throws {
        let a = try DeviceIdentificationAnswer.parse(Self.answer(Self.basic), asked: .basic)
        XCTAssertEqual(a.objects.map(\.id.name), ["VendorName", "ProductCode", "MajorMinorRevision"])
        XCTAssertEqual(a.objects.map(\.text), ["Acme", "PRS-200", "3.1"])
        XCTAssertEqual(a.conformity, ConformityLevel(category: .basic, individualAccess: true))
        XCTAssertNil(a.next)
        let more = try DeviceIdentificationAnswer.parse(
            Self.answer(code: 3, conformity: 0x83, more: 0xFF, next: 0x81, [(0x80, "x")]), asked: .extended)
        XCTAssertEqual(more.next, 0x81)
    }

    func testEveryMalformedAnswerIsRefusedWithItsKind() {
        let cases: [(String, [UInt8], IdentificationCategory, IdentificationError.Kind)] = [
            ("empty", [], .basic, .truncated),
            ("header cut", [0x2B, 0x0E, 1, 0x81, 0, 0], .basic, .truncated),
            ("exception", [0xAB, 0x01], .basic, .exception(1)),
            ("wrong function", [0x03, 0x0E, 1, 0x81, 0, 0, 0], .basic, .notTheAnswer),
            ("wrong MEI type", [0x2B, 0x0D, 1, 0x81, 0, 0, 0], .basic, .notTheAnswer),
            ("wrong code echo", Self.answer(code: 2, Self.basic), .basic, .notTheAnswer),
            ("conformity 04", Self.answer(conformity: 0x04, Self.basic), .basic, .badField),
            ("conformity 00", Self.answer(conformity: 0x00, Self.basic), .basic, .badField),
            ("more follows 01", Self.answer(more: 0x01, Self.basic), .basic, .badField),
            ("object length past the end", Array(Self.answer(Self.basic).dropLast()), .basic, .truncated),
            ("count beyond the objects", Self.answer(count: 4, Self.basic), .basic, .truncated),
            ("count short of the objects", Self.answer(count: 2, Self.basic), .basic, .trailingBytes),
            ("regular object in a basic answer", Self.answer([(0, "a"), (3, "u")]), .basic, .objectOrder),
            ("private object in a regular answer", Self.answer(code: 2, [(0x80, "p")]), .regular, .objectOrder),
            ("objects out of order", Self.answer([(1, "b"), (0, "a")]), .basic, .objectOrder),
            ("an object twice", Self.answer([(1, "b"), (1, "b")]), .basic, .objectOrder),
            ("more follows backwards", Self.answer(more: 0xFF, next: 1, Self.basic), .basic, .noProgress),
            ("more follows with no objects", Self.answer(more: 0xFF, next: 5, []), .basic, .noProgress),
            ("longer than a PDU", Self.answer(code: 3, [(0x80, String(repeating: "x", count: 250))]), .extended, .trailingBytes),
        ]
        for (name, pdu, asked, kind) in cases {
            XCTAssertThrowsError(try DeviceIdentificationAnswer.parse(pdu, asked: asked), name) { error in
                XCTAssertEqual((error as? IdentificationError)?.kind, kind, "\(name): \(error)")
                XCTAssertFalse((error as? IdentificationError)?.message.isEmpty ?? true, name)
            }
        }
    }

    func testReadingFollowsMoreFollowsThenTheConformityLevel() throws {
        var reading = DeviceIdentificationReading()
        XCTAssertEqual(reading.request, .init(category: .basic, objectId: 0))
        try reading.take(DeviceIdentificationAnswer.parse(Self.answer(conformity: 0x83, Self.basic), asked: .basic))
        XCTAssertEqual(reading.request, .init(category: .extended, objectId: 3), "extended conformity: read on from 0x03")
        // The device restarts at object 0 (it has no 0x03) and splits its answer.
        try reading.take(
            DeviceIdentificationAnswer.parse(
                Self.answer(code: 3, conformity: 0x83, more: 0xFF, next: 0x81, Self.basic + [(0x80, "p0")]), asked: .extended))
        XCTAssertEqual(reading.request, .init(category: .extended, objectId: 0x81))
        try reading.take(
            DeviceIdentificationAnswer.parse(Self.answer(code: 3, conformity: 0x83, [(0x81, "p1")]), asked: .extended))
        XCTAssertNil(reading.request)
        XCTAssertEqual(reading.answers, 3)
        XCTAssertEqual(reading.result?.objects.map(\.id.rawValue), [0, 1, 2, 0x80, 0x81])
        XCTAssertEqual(reading.result?.productCode, "PRS-200")
    }

    func testReadingStopsAtBasicForABasicDeviceOrWhenAskedTo() throws {
        var basicDevice = DeviceIdentificationReading()
        try basicDevice.take(DeviceIdentificationAnswer.parse(Self.answer(conformity: 0x01, Self.basic), asked: .basic))
        XCTAssertNil(basicDevice.request)
        XCTAssertEqual(basicDevice.result?.objects.count, 3)
        var asked = DeviceIdentificationReading(upTo: .basic)
        try asked.take(DeviceIdentificationAnswer.parse(Self.answer(conformity: 0x83, Self.basic), asked: .basic))
        XCTAssertNil(asked.request)
        var regular = DeviceIdentificationReading()
        try regular.take(DeviceIdentificationAnswer.parse(Self.answer(conformity: 0x02, Self.basic), asked: .basic))
        XCTAssertEqual(regular.request, .init(category: .regular, objectId: 3))
    }

    func testTwoAnswersThatDisagreeAreRefused() throws {
        var reading = DeviceIdentificationReading()
        try reading.take(DeviceIdentificationAnswer.parse(Self.answer(conformity: 0x83, Self.basic), asked: .basic))
        let otherValue = try DeviceIdentificationAnswer.parse(
            Self.answer(code: 3, conformity: 0x83, [(1, "PRS-300")]), asked: .extended)
        XCTAssertThrowsError(try reading.take(otherValue)) { XCTAssertEqual(($0 as? IdentificationError)?.kind, .inconsistent) }
        var second = DeviceIdentificationReading()
        try second.take(DeviceIdentificationAnswer.parse(Self.answer(conformity: 0x83, Self.basic), asked: .basic))
        let otherLevel = try DeviceIdentificationAnswer.parse(Self.answer(code: 3, conformity: 0x03, []), asked: .extended)
        XCTAssertThrowsError(try second.take(otherLevel)) { XCTAssertEqual(($0 as? IdentificationError)?.kind, .inconsistent) }
    }

    func testFrameLengthsFromTheirFirstBytes() {
        let pdu = Self.answer(Self.basic)
        let rtu = [UInt8(17)] + pdu + [0, 0]
        let cases: [(String, [UInt8], IdentificationFrame.Need)] = [
            ("nothing", [], .atLeast(2)),
            ("exception", [17, 0xAB], .complete(5)),
            ("other function", [17, 0x03], .invalid("function 0x03 answers no FC43 request")),
            ("header", Array(rtu.prefix(5)), .atLeast(8)),
            ("first object header missing", Array(rtu.prefix(8)), .atLeast(10)),
            ("whole", rtu, .complete(rtu.count)),
            (
                "one object past 256 bytes", [17, 0x2B, 0x0E, 3, 0x83, 0, 0, 2, 0x80, 250],
                .invalid("the objects run past the 256 bytes of an RTU frame")
            ),
        ]
        for (name, bytes, need) in cases { XCTAssertEqual(IdentificationFrame.rtu(bytes), need, name) }
        // The second object's header is what takes the frame past 256 bytes.
        var overrun: [UInt8] = [17, 0x2B, 0x0E, 3, 0x83, 0, 0, 2, 0x80, 200] + [UInt8](repeating: 0x41, count: 200)
        XCTAssertEqual(IdentificationFrame.rtu(overrun), .atLeast(212))
        overrun += [0x81, 60]
        if case .invalid = IdentificationFrame.rtu(overrun) {} else { XCTFail("\(IdentificationFrame.rtu(overrun))") }
        XCTAssertEqual(IdentificationFrame.tcp([0, 0, 0, 0, 0, 5, 1]), .complete(11))
        XCTAssertEqual(IdentificationFrame.tcp([0, 0, 0, 0]), .atLeast(7))
        XCTAssertEqual(IdentificationFrame.tcp([0, 0, 0, 1, 0, 5, 1]), .invalid("protocol id 1 is not Modbus (0)"))
        XCTAssertEqual(IdentificationFrame.tcp([0, 0, 0, 0, 1, 0, 1]), .invalid("MBAP length 256 is outside 2…254"))
    }

    func testCRCOfAKnownFrame() {
        // 01 03 00 00 00 01 → CRC 84 0A (the Modbus specification's example form).
        XCTAssertEqual(IdentificationFrame.crc16([0x01, 0x03, 0x00, 0x00, 0x00, 0x01][...]), 0x0A84)
        XCTAssertTrue(IdentificationFrame.crcMatches([0x01, 0x03, 0x00, 0x00, 0x00, 0x01, 0x84, 0x0A]))
        XCTAssertFalse(IdentificationFrame.crcMatches([0x01, 0x03, 0x00, 0x00, 0x00, 0x01, 0x0A, 0x84]))
    }

    func testObjectNamesAndText() {
        XCTAssertEqual(IdentificationObjectId(name: "ProductCode")?.rawValue, 1)
        XCTAssertEqual(IdentificationObjectId(name: "0x81")?.rawValue, 0x81)
        XCTAssertNil(IdentificationObjectId(name: "0x07"), "reserved ids are not configurable")
        XCTAssertNil(IdentificationObjectId(name: "productcode"))
        XCTAssertNil(IdentificationObjectId(name: "0x181"))
        XCTAssertEqual(IdentificationObjectId(rawValue: 0x9A).name, "0x9A")
        XCTAssertEqual(IdentificationObject(id: .vendorName, value: [0x41, 0x00]).shown, "0x4100", "a control byte is not text")
        XCTAssertEqual(IdentificationObject(id: .vendorName, value: [0xC3, 0x28]).text, nil, "invalid UTF-8 is not text")
        XCTAssertEqual(IdentificationObject(id: .vendorName, value: Array("Müller".utf8)).text, "Müller")
    }
}
