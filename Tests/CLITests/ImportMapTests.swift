import Foundation
import LastsetCore
import TestSupport
import XCTest

/// `lastset import-map`: offline CSV → page JSON.
final class ImportMapTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws { directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-cli") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func write(_ name: String, _ text: String) throws -> String {
        let path = directory + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testCSVBecomesExactPageJSONWithoutTheDaemon() throws {
        let csv = try write(
            "heating.csv",
            """
            Address,Name,Type,Access,Min,Max,Unit,Scale,Clone,Description
            100,Mode,u16,rw,0,2,,,,operating mode
            0x65,Setpoint,s16,,-200,900,°C,0.1,,
            200,Unit id,u16,,,,,,no,

            """)
        // The socket points nowhere: import-map must not try it.
        let result = try runCLI(
            ["import-map", csv, "--page", "heating", "--title", "Heating"],
            environment: ["LASTSET_SOCKET": "/tmp/lastset-cli-nowhere.sock"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(
            result.stdout,
            """
            {
              "id" : "heating",
              "registers" : [
                {
                  "access" : "rw",
                  "address" : 100,
                  "description" : "operating mode",
                  "max" : 2,
                  "min" : 0,
                  "name" : "Mode",
                  "registerId" : "heating.mode",
                  "type" : "u16"
                },
                {
                  "address" : 101,
                  "max" : 900,
                  "min" : -200,
                  "name" : "Setpoint",
                  "registerId" : "heating.setpoint",
                  "scale" : 0.1,
                  "type" : "s16",
                  "unit" : "°C"
                },
                {
                  "address" : 200,
                  "clone" : false,
                  "name" : "Unit id",
                  "registerId" : "heating.unit_id",
                  "type" : "u16"
                }
              ],
              "title" : "Heating"
            }

            """)
        // The output is a page definition the config accepts as is.
        let page = try JSONDecoder().decode(PageDefinition.self, from: Data(result.stdout.utf8))
        XCTAssertEqual(page.registers.map(\.registerId), ["heating.mode", "heating.setpoint", "heating.unit_id"])
    }

    func testEveryProblemIsReportedWithLineColumnAndValue() throws {
        let csv = try write("bad.csv", "Address,Name,Type\n100,Mode,uint13\n-1,X,u16\n")
        let result = try runCLI(["import-map", csv, "--page", "heating"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(
            result.stderr,
            """
            error: \(csv): 2 problems:
            \(csv): line 2, column type: unknown register type; expected u16, s16, u32, s32, u64, s64, f32, f64, string(n) or raw(n), or UINT16, INT16, UINT32, INT32, FLOAT32, STRING (got "uint13")
            \(csv): line 3, column address: address must not be negative (got -1)

            """)
    }

    func testMissingFileAndMissingPage() throws {
        let missing = directory + "/nope.csv"
        let result = try runCLI(["import-map", missing, "--page", "heating"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.hasPrefix("error: cannot read \"\(missing)\" as UTF-8 text: "), result.stderr)

        let noPage = try runCLI(["import-map", missing])
        XCTAssertEqual(noPage.status, 64)
        XCTAssertEqual(
            noPage.stderr,
            """
            error: missing option --page ID
            usage: lastset import-map FILE --page ID [--title TITLE] [--format FORMAT] [--addressing MODE]
            see "lastset import-map --help"

            """)
    }
}
