import Foundation
import XCTest

@testable import LastsetCore

final class RegisterMapCSVTests: XCTestCase {
    /// The heating page of design.md §4 as a vendor might export it.
    static let heatingCSV = #"""
        Address,Name,Type,Register ID,Access,Min,Max,Enum,Unit,Scale,Clone,Word Order,Byte Order,Unset,Description
        100,Mode,u16,heating.mode,rw,,,0|1|2,,,,,,,"Operating mode: 0 off, 1 manual, 2 auto"
        0x65,Setpoint,S16,,RW,-200,900,,°C,0.1,,,,,
        102,Energy limit,u32,heating.energy,,,,,kWh,,,little,,0,
        110,"Label, shown on the HMI",string(16),heating.label,,,,,,,,,,,
        200,Unit id,u16,comm.unit,ro,1,247,,,,false,,,,"never ""cloned"""
        """#

    func testImportsTheHeatingPage() throws {
        let page = try RegisterMapCSV.page(fromCSV: Self.heatingCSV, pageId: "heating", title: "Heating")
        XCTAssertEqual(
            page,
            PageDefinition(
                id: "heating", title: "Heating",
                registers: [
                    RegisterDefinition(
                        registerId: "heating.mode", name: "Mode", address: 100, type: .u16, enum: [0, 1, 2], access: .rw,
                        description: "Operating mode: 0 off, 1 manual, 2 auto"),
                    RegisterDefinition(
                        registerId: "heating.setpoint", name: "Setpoint", address: 101, type: .s16, min: -200, max: 900,
                        scale: 0.1,
                        unit: "°C", access: .rw),
                    RegisterDefinition(
                        registerId: "heating.energy", name: "Energy limit", address: 102, type: .u32, wordOrder: .little,
                        unset: .unsigned(0), unit: "kWh"),
                    RegisterDefinition(
                        registerId: "heating.label", name: "Label, shown on the HMI", address: 110, type: .string(16)),
                    RegisterDefinition(
                        registerId: "comm.unit", name: "Unit id", address: 200, type: .u16, min: 1, max: 247, access: .ro,
                        clone: false, description: #"never "cloned""#),
                ]))
    }

    func testRenderedJSONIsAcceptedByTheConfigChecker() throws {
        let page = try RegisterMapCSV.page(fromCSV: Self.heatingCSV, pageId: "heating", title: "Heating")
        let json = RegisterMapCSV.json(for: page)
        XCTAssertTrue(json.contains("\"registerId\" : \"heating.setpoint\""), json)
        XCTAssertTrue(json.contains("\"type\" : \"string(16)\""), json)
        // Sorted keys: address comes before name, name before registerId.
        let first = json.components(separatedBy: "\"registers\"")[1]
        XCTAssertLessThan(first.range(of: "\"address\"")!.lowerBound, first.range(of: "\"name\"")!.lowerBound)
        let config = "{ version: 1, devices: [], pages: [ \(json) ] }"
        let checked = try ConfigLoader.check(Data(config.utf8), file: "pasted.json")
        XCTAssertEqual(checked.pages, [page])
    }

    func testRenderRoundTripsEveryField() throws {
        let page = PageDefinition(
            id: "all", title: "All",
            identity: [IdentityRegister(registerId: "model", address: 0, type: .string(8), byteOrder: .little)],
            beforeWrite: [WriteStep(address: 1536, value: 6868)], afterWrite: [WriteStep(address: 2304, value: 0)],
            registers: [
                RegisterDefinition(
                    registerId: "a", name: "A/B", address: 10, type: .f64, wordOrder: .little, byteOrder: .little,
                    unset: .float(-1), min: -1e6, max: 1e6, scale: 0.001, unit: "m³", access: .rw, clone: true),
                RegisterDefinition(registerId: "b", address: 14, type: .raw(3), unset: .bytes([0, 0, 0])),
                RegisterDefinition(registerId: "c", address: 16, type: .s64, unset: .signed(-1), enum: [-1, 0, 1]),
                RegisterDefinition(registerId: "d", address: 20, type: .u64, unset: .unsigned(.max - 1)),
            ])
        let config = "{ version: 1, devices: [], pages: [ \(RegisterMapCSV.json(for: page)) ] }"
        XCTAssertEqual(try ConfigLoader.check(Data(config.utf8), file: "x").pages, [page])
    }

    func testMinimalColumnsDeriveIds() throws {
        let csv = "address;name;type\r\n1;Max. speed (rpm);u16\r\n\r\n2;  Zone 2 — temp  ;s16\r\n"
        let page = try RegisterMapCSV.page(fromCSV: csv, pageId: "drive", title: nil)
        XCTAssertEqual(page.registers.map(\.registerId), ["drive.max_speed_rpm", "drive.zone_2_temp"])
        XCTAssertEqual(page.registers.map(\.name), ["Max. speed (rpm)", "Zone 2 — temp"])
        XCTAssertNil(page.title)
    }

    func testQuotedFieldsWithNewlinesKeepLineNumbers() throws {
        let csv = "address,name,type,description\n1,\"A\",u16,\"two\nlines\"\n2,B,u17,\n"
        XCTAssertThrowsError(try RegisterMapCSV.page(fromCSV: csv, pageId: "p", title: nil)) { error in
            XCTAssertEqual(
                (error as? CSVImportError)?.problems,
                [
                    CSVProblem(
                        line: 4, column: "type", value: "\"u17\"",
                        message:
                            "unknown register type; expected u16, s16, u32, s32, u64, s64, f32, f64, string(n) or raw(n), or UINT16, INT16, UINT32, INT32, FLOAT32, STRING"
                    )
                ])
        }
    }

    private struct Bad {
        var csv: String
        var pageId = "p"
        var expected: [(line: Int, column: String, fragments: [String])]
        var line: UInt = #line
    }

    private let cases: [Bad] = [
        Bad(csv: "", expected: [(1, "", ["no header row"])]),
        Bad(csv: "address,name\n1,a\n", expected: [(1, "type", ["required column \"type\" is missing"])]),
        Bad(csv: "address,name,type,wordorder,colour\n", expected: [(1, "colour", ["unknown column", "\"colour\""])]),
        Bad(csv: "address,name,type,Address\n", expected: [(1, "address", ["column appears twice"])]),
        Bad(csv: "address,name,type\n", expected: [(1, "", ["no register rows"])]),
        Bad(csv: "address,name,type\n1,a,u16\n", pageId: "../x", expected: [(0, "pageId", ["page id must match", "\"../x\""])]),
        Bad(
            csv: "address,name,type\nten,a,u16\n-1,b,u16\n0x10000,c,u16\n65535,d,u32\n,e,u16\n",
            expected: [
                (2, "address", ["not an address", "\"ten\""]),
                (3, "address", ["must not be negative", "-1"]),
                (4, "address", ["beyond the last register", "65536"]),
                (5, "address", ["ends at 65536", "65535"]),
                (6, "address", ["address is empty"]),
            ]),
        Bad(
            csv: "address,name,type,registerId\n1,,u16,\n2,°,u16,\n3,x,,\n",
            expected: [
                (2, "name", ["name is empty"]),
                (3, "name", ["cannot derive a registerId", "\"°\""]),
                (4, "type", ["type is empty"]),
            ]),
        Bad(
            csv:
                "address,name,type,access,min,max,clone,wordOrder,byteOrder,enum,scale\n1,a,u16,x,lo,hi,maybe,middle,mixed,1|two,big\n",
            expected: [
                (2, "access", ["rw or ro", "\"x\""]),
                (2, "min", ["not a number", "\"lo\""]),
                (2, "max", ["not a number", "\"hi\""]),
                (2, "scale", ["not a number", "\"big\""]),
                (2, "enum", ["numbers separated by |", "\"two\""]),
                (2, "clone", ["true or false", "\"maybe\""]),
                (2, "wordOrder", ["big or little", "\"middle\""]),
                (2, "byteOrder", ["big or little", "\"mixed\""]),
            ]),
        Bad(
            csv:
                "address,name,type,min,max,enum,unset\n1,a,u16,10,5,,\n2,b,u16,0,5,7,\n3,c,s16,,,,40000\n4,d,raw(2),,,,zz\n5,e,u16,,,,x\n",
            expected: [
                (2, "min", ["min is greater than max 5", "10"]),
                (3, "enum", ["above max 5", "7"]),
                (4, "unset", ["unset does not fit s16", "40000"]),
                (5, "unset", ["must be hex bytes", "\"zz\""]),
                (6, "unset", ["unset must be a number", "\"x\""]),
            ]),
        Bad(
            csv: "address,name,type\n10,a,u32\n11,b,u16\n1,a,u16\n",
            expected: [
                (3, "address", ["\"p.b\" (11...11) overlaps \"p.a\" (10...11) on line 2"]),
                (4, "registerId", ["duplicate registerId (first on line 2)", "\"p.a\""]),
            ]),
        // A duplicate or an overlap is reported even when that row has another problem too.
        Bad(
            csv: "address,name,type,access,registerId\n10,a,u32,,x\n11,b,u16,maybe,y\n1,a,u16,zz,x\n",
            expected: [
                (3, "access", ["rw or ro", "\"maybe\""]),
                (3, "address", ["\"y\" (11...11) overlaps \"x\" (10...11) on line 2"]),
                (4, "access", ["rw or ro", "\"zz\""]),
                (4, "registerId", ["duplicate registerId (first on line 2)", "\"x\""]),
            ]),
        Bad(
            csv: "address,name,type\n1,a,u16,extra\n2,b,u16,,\n",
            expected: [
                (2, "", ["row has 4 fields, the header has 3", "\"extra\""])
            ]),
    ]

    func testBadCSVs() {
        for c in cases {
            do {
                let page = try RegisterMapCSV.page(fromCSV: c.csv, pageId: c.pageId, title: nil)
                XCTFail("accepted: \(page)", line: c.line)
            } catch {
                let problems = error.problems
                XCTAssertEqual(problems.map(\.line), c.expected.map(\.line), "\(error)", line: c.line)
                XCTAssertEqual(problems.map(\.column), c.expected.map(\.column), "\(error)", line: c.line)
                for (problem, expected) in zip(problems, c.expected) {
                    let text = problem.message + " got " + problem.value
                    for fragment in expected.fragments {
                        XCTAssertTrue(text.contains(fragment), "\(problem) lacks \(fragment)", line: c.line)
                    }
                }
            }
        }
    }

    func testProblemDescription() {
        XCTAssertEqual(
            CSVProblem(line: 4, column: "type", value: "\"uint\"", message: "unknown register type").description,
            "line 4, column type: unknown register type (got \"uint\")")
    }

    func testSlugify() {
        XCTAssertEqual(RegisterMapCSV.slugify("Energy limit"), "energy_limit")
        XCTAssertEqual(RegisterMapCSV.slugify("__P-1 / Max__"), "p_1_max")
        XCTAssertEqual(RegisterMapCSV.slugify("°"), "")
    }
}
