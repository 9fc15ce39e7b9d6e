import Foundation
import LastsetCore
import XCTest

/// Split config: pages and register maps in separate files, checked like inline ones, every problem
/// naming the file it is in and its JSON path there.
final class ConfigIncludesTests: XCTestCase {
    /// An in-memory file system.
    static func reader(_ files: [String: String]) -> ConfigIncludes.Reader {
        { path in
            guard let text = files[path] else { return .failure(ConfigIncludes.ReadFailure("no such file")) }
            return .success(Data(text.utf8))
        }
    }

    static let main = "/etc/lastset/lastset.json"

    static func config(_ pages: String) -> String {
        """
        { version: 1,
          devices: [ { id: "d", endpoint: "tcp://127.0.0.1:1502", unit: 1, pages: ["heating"] } ],
          pages: [ \(pages) ] }
        """
    }

    static let registers = """
        // the heating register map, kept apart
        [
          { registerId: "heating.mode", address: 100, type: "u16", enum: [0, 1, 2], description: "0 off, 1 manual, 2 auto" },
          { registerId: "heating.setpoint", address: 101, type: "s16", min: -200, max: 900 },
        ]
        """

    func check(_ text: String, _ files: [String: String]) -> Result<LastsetConfig, ConfigErrors> {
        do throws(ConfigErrors) {
            return .success(try ConfigLoader.check(Data(text.utf8), file: Self.main, read: Self.reader(files)))
        } catch {
            return .failure(error)
        }
    }

    func testIncludedRegistersAndPagesEqualInlineOnes() throws {
        let inline = try ConfigLoader.check(
            Data(Self.config("{ id: \"heating\", title: \"Heating\", registers: \(Self.registers) }").utf8), file: Self.main,
            read: Self.reader([:]))
        let files = [
            "/etc/lastset/maps/heating.json5": Self.registers,
            "/etc/lastset/pages/heating.json5":
                "{ id: \"heating\", title: \"Heating\", registers: { include: \"../maps/heating.json5\" } }",
        ]
        for pages in [
            "{ id: \"heating\", title: \"Heating\", registers: { include: \"maps/heating.json5\" } }",
            "{ include: \"pages/heating.json5\" }",
            "{ include: \"/etc/lastset/pages/heating.json5\" }",
        ] {
            XCTAssertEqual(try check(Self.config(pages), files).get().pages, inline.pages, pages)
        }
        XCTAssertEqual(inline.pages[0].registers[0].description, "0 off, 1 manual, 2 auto")
    }

    func testProblemsNameTheIncludedFileAndItsJSONPath() {
        let files = [
            "/etc/lastset/maps/heating.json5": """
            [
              { registerId: "heating.mode", address: 100, type: "u17" },
              { registerId: "heating.setpoint", address: 100, type: "s16", colour: "red" },
            ]
            """,
            "/etc/lastset/pages/motion.json5": "{ id: \"motion\", registers: { include: \"motion-registers.json5\" } }",
            "/etc/lastset/pages/motion-registers.json5": "[ { registerId: \"motion.speed\", address: -1, type: \"u16\" } ]",
            "/etc/lastset/broken.json5": "[ { registerId: \"x\", address: 1, type: \"u16\" }, }",
            "/etc/lastset/loop.json5": "{ id: \"loop\", registers: { include: \"loop.json5\" } }",
        ]
        let pages = """
            { id: "heating", registers: { include: "maps/heating.json5" } },
            { include: "pages/motion.json5" },
            { id: "gone", registers: { include: "maps/nosuch.json5" } },
            { id: "broken", registers: { include: "broken.json5" } },
            { include: "loop.json5" },
            { id: "extra", registers: { include: "maps/heating.json5", note: "x" } },
            """
        guard case .failure(let errors) = check(Self.config(pages), files) else { return XCTFail("accepted") }
        XCTAssertEqual(
            errors.problems.map(\.description),
            [
                #"/etc/lastset/lastset.json: pages[2].registers.include: cannot read included file /etc/lastset/maps/nosuch.json5: no such file (got "maps/nosuch.json5")"#,
                "/etc/lastset/broken.json5: $: not valid JSON5: line 1, column 49: expected a value, found '}'",
                #"/etc/lastset/loop.json5: registers.include: include cycle: /etc/lastset/loop.json5 → /etc/lastset/loop.json5 (got "loop.json5")"#,
                #"/etc/lastset/lastset.json: pages[5].registers.note: an include holds only "include"; put note in the included file"#,
                #"/etc/lastset/maps/heating.json5: $[0].type: unknown register type; expected u16, s16, u32, s32, u64, s64, f32, f64, string(n) or raw(n) with n in 1...250 (got "u17")"#,
                #"/etc/lastset/maps/heating.json5: $[1].colour: unknown key; known keys: registerId, name, address, type, wordOrder, byteOrder, unset, min, max, enum, scale, unit, access, clone, factoryDefault, description (got "red")"#,
                "/etc/lastset/pages/motion-registers.json5: $[0].address: address must not be negative (got -1)",
            ])
    }
}
