import Foundation
import TestSupport
import XCTest

@testable import LastsetCore

final class ConfigLoaderTests: XCTestCase {
    /// The config of design.md §4, exactly as shown there.
    static let designConfig = #"""
        // /etc/lastset/lastset.json — JSON5: comments and trailing commas are fine
        {
          version: 1,
          api: { socket: "/run/lastset/api.sock" },   // optional: tcp: { listen: "127.0.0.1:8502", tokenFile: "…" }
          devices: [
            {
              id: "press-1",
              endpoint: "tcp://127.0.0.1:15020",       // or "rtu:///dev/ttyUSB0?baud=19200&parity=N&data=8&stop=1"
              unit: 1,
              pages: ["heating"],                      // which pages this device has
              poll: "10s",                             // "0s" or absent: no polling
              quirks: { maxReadRegisters: 125, maxWriteRegisters: 123, maxGap: 8,
                        writeFunction: "auto",         // auto | fc06 | fc16
                        requestDelay: "0ms", timeout: "500ms", retries: 2 },
            },
          ],
          pages: [
            {
              id: "heating",
              title: "Heating",
              identity: [ { registerId: "model", address: 0, type: "string(8)" } ],   // must match to replay
              beforeWrite: [ { address: 1536, value: 6868 } ],                        // unlock
              afterWrite:  [ { address: 2304, value: 0 } ],                           // commit
              registers: [                                                            // order = write order
                { registerId: "heating.mode", name: "Mode", address: 100, type: "u16", enum: [0, 1, 2] },
                { registerId: "heating.setpoint", name: "Setpoint", address: 101, type: "s16",
                  min: -200, max: 900, scale: 0.1, unit: "°C" },
                { registerId: "heating.energy", name: "Energy limit", address: 102, type: "u32", wordOrder: "little" },
                { registerId: "heating.label", name: "Label", address: 110, type: "string(16)" },
                { registerId: "comm.unit", name: "Unit id", address: 200, type: "u16", clone: false },
              ],
            },
          ],
        }
        """#

    func testDesignConfigIsAcceptedAsShown() throws {
        let config = try ConfigLoader.check(Data(Self.designConfig.utf8), file: "lastset.json")
        let expected = LastsetConfig(
            version: 1, api: APIConfig(socket: "/run/lastset/api.sock"),
            devices: [
                DeviceConfig(
                    id: "press-1", endpoint: "tcp://127.0.0.1:15020", unit: 1, pages: ["heating"], poll: "10s",
                    quirks: Quirks(
                        maxReadRegisters: 125, maxWriteRegisters: 123, maxGap: 8, writeFunction: .auto,
                        requestDelay: "0ms", timeout: "500ms", retries: 2))
            ],
            pages: [
                PageDefinition(
                    id: "heating", title: "Heating",
                    identity: [IdentityRegister(registerId: "model", address: 0, type: .string(8))],
                    beforeWrite: [WriteStep(address: 1536, value: 6868)],
                    afterWrite: [WriteStep(address: 2304, value: 0)],
                    registers: [
                        RegisterDefinition(registerId: "heating.mode", name: "Mode", address: 100, type: .u16, enum: [0, 1, 2]),
                        RegisterDefinition(
                            registerId: "heating.setpoint", name: "Setpoint", address: 101, type: .s16, min: -200, max: 900,
                            scale: 0.1, unit: "°C"),
                        RegisterDefinition(
                            registerId: "heating.energy", name: "Energy limit", address: 102, type: .u32, wordOrder: .little),
                        RegisterDefinition(registerId: "heating.label", name: "Label", address: 110, type: .string(16)),
                        RegisterDefinition(registerId: "comm.unit", name: "Unit id", address: 200, type: .u16, clone: false),
                    ])
            ])
        XCTAssertEqual(config, expected)
        XCTAssertEqual(config.device("press-1")?.limits.timeout, .milliseconds(500))
    }

    func testLoadReadsAFileAndReportsAMissingOne() throws {
        let url = TestPaths.temporaryFile("\(UUID().uuidString).json", prefix: "lastset-core")
        try Data(Self.designConfig.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        XCTAssertEqual(try ConfigLoader.load(path: url.path).pages.first?.id, "heating")
        XCTAssertThrowsError(try ConfigLoader.load(path: url.path + ".missing")) { error in
            let problems = (error as? ConfigErrors)?.problems ?? []
            XCTAssertEqual(problems.count, 1)
            XCTAssertEqual(problems.first?.file, url.path + ".missing")
            XCTAssertTrue(problems.first?.message.hasPrefix("cannot read file") ?? false)
        }
    }

    func testOptionalKeysAndExtras() throws {
        let text = """
            { version: 1, history: 5, devices: [ { id: "d.1", endpoint: "rtu:///dev/ttyUSB0?baud=9600&parity=E", unit: 247 } ],
              api: { tcp: { listen: "127.0.0.1:8502", tokenFile: "/etc/lastset/token" } },
              pages: [ { id: "p", registers: [
                { registerId: "a", address: 0, type: "f32", unset: -1, byteOrder: "little", access: "ro" },
                { registerId: "b", address: 2, type: "raw(4)", unset: { hex: "00000000" } },
                { registerId: "c", address: 4, type: "string(2)", unset: "" },
                { registerId: "d", address: 5, type: "u64", unset: 18446744073709551614 },
                { registerId: "e", address: 0x10, type: "u16", min: 0, max: 0xFFFE, enum: [0, 0xFFFE] },
                { registerId: "f", address: 65535, type: "u16", title: null },
              ] } ] }
            """
        // `title: null` inside a register is still an unknown key.
        XCTAssertThrowsError(try ConfigLoader.check(Data(text.utf8), file: "f")) { error in
            XCTAssertEqual((error as? ConfigErrors)?.problems.map(\.path), ["pages[0].registers[5].title"])
        }
        let config = try ConfigLoader.check(Data(text.replacingOccurrences(of: ", title: null", with: "").utf8), file: "f")
        XCTAssertEqual(config.historyLimit, 5)
        XCTAssertEqual(config.api?.tcp, TCPAPIConfig(listen: "127.0.0.1:8502", tokenFile: "/etc/lastset/token"))
        let registers = config.pages[0].registers
        XCTAssertEqual(
            registers.map(\.unset),
            [.float(-1), .bytes([0, 0, 0, 0]), .text(""), .unsigned(18_446_744_073_709_551_614), nil, nil])
        XCTAssertEqual(registers[4].address, 16)
        XCTAssertEqual(registers[4].max, 65534)
        XCTAssertEqual(registers[0].access, .ro)
        XCTAssertEqual(config.devices[0].pages, nil)
    }

    // MARK: golden bad configs

    private struct Bad {
        var name: String
        var text: String
        /// Each expected problem: its path and fragments its message (or quoted value) must contain.
        var expected: [(path: String, fragments: [String])]
        var line: UInt = #line
    }

    /// A valid base: `%DEVICE%`, `%PAGE%` and `%REGS%` are replaced by each case.
    private static func config(
        device: String = #"{ id: "dev", endpoint: "tcp://127.0.0.1:1502", unit: 1, pages: ["p"] }"#,
        page: String? = nil, registers: String = #"{ registerId: "p.a", address: 0, type: "u16" }"#, top: String = "version: 1,"
    ) -> String {
        let p = page ?? #"{ id: "p", registers: [ \#(registers) ] }"#
        return "{ \(top) devices: [ \(device) ], pages: [ \(p) ] }"
    }

    private let cases: [Bad] = [
        Bad(name: "syntax", text: "{ version: 1,\n devices: [ }", expected: [("$", ["not valid JSON5"])]),
        Bad(name: "root not object", text: "[1, 2]", expected: [("$", ["must be an object", "an array"])]),
        Bad(
            name: "empty object", text: "{}",
            expected: [
                ("version", ["required key \"version\" is missing"]),
                ("pages", ["required key \"pages\" is missing"]),
                ("devices", ["required key \"devices\" is missing"]),
            ]),
        Bad(name: "version", text: config(top: "version: 2,"), expected: [("version", ["unsupported config version", "2"])]),
        Bad(
            name: "version type", text: config(top: #"version: "1","#),
            expected: [("version", ["must be an integer", "a string", #""1""#])]),
        Bad(name: "history", text: config(top: "version: 1, history: 0,"), expected: [("history", ["at least 1", "0"])]),
        Bad(
            name: "unknown top key", text: config(top: "version: 1, devics: [],"),
            expected: [("devics", ["unknown key", "known keys: version"])]),
        Bad(
            name: "typo suggestion", text: config(top: "version: 1, History: 3,"),
            expected: [("History", ["did you mean \"history\"?"])]),
        Bad(
            name: "api", text: config(top: #"version: 1, api: { socket: "run/x.sock", tcp: { listen: "localhost" } },"#),
            expected: [
                ("api.socket", ["absolute path", #""run/x.sock""#]),
                ("api.tcp.listen", ["host:port", #""localhost""#]),
                ("api.tcp", [#"needs "tokenFile" or "tokens""#]),
            ]),
        Bad(
            name: "api connection limits",
            text: config(top: #"version: 1, api: { socketConnectionsPerUser: 57, requestTimeout: "500ms" },"#),
            expected: [
                ("api.socketConnectionsPerUser", ["must be in 1...56", "57"]),
                ("api.requestTimeout", ["from 1s to 10m", #""500ms""#]),
            ]),
        Bad(
            name: "audit retention",
            text: config(top: #"version: 1, audit: { keepRecords: 0, keepDays: 40000, interval: "10s", keep: 5 },"#),
            expected: [
                ("audit.keep", ["unknown key"]),
                ("audit.keepRecords", ["must be in 1...100000000", "0"]),
                ("audit.keepDays", ["must be in 1...36500", "40000"]),
                ("audit.interval", ["from 1m to 168h", #""10s""#]),
            ]),
        Bad(
            name: "audit retention: wrong types",
            text: config(top: #"version: 1, audit: { keepRecords: "400000 records", interval: "hourly" },"#),
            expected: [
                ("audit.keepRecords", ["must be an integer", #""400000 records""#]),
                ("audit.interval", ["not a duration", #""hourly""#]),
            ]),
        Bad(
            name: "api connection limits: zero, and not a duration",
            text: config(top: #"version: 1, api: { socketConnectionsPerUser: 0, requestTimeout: "soon" },"#),
            expected: [
                ("api.socketConnectionsPerUser", ["must be in 1...56", "0"]),
                ("api.requestTimeout", ["not a duration", #""soon""#]),
            ]),
        Bad(
            name: "api tokens, tls and roles",
            text: config(
                top: #"""
                    version: 1, api: { roles: { operatorGroups: ["ops", ""], viewers: [] },
                      tcp: { listen: "0.0.0.0:8502", tokenFile: "/etc/t", hosts: ["lastset.example", 3],
                             tokens: [ { name: "a b", role: "admin", sha256: "abc" },
                                       { name: "api", role: "viewer", sha256: "\#(String(repeating: "0", count: 64))" } ] } },
                    """#),
            expected: [
                ("api.tcp.tokens[0].name", ["token name must match", #""a b""#]),
                ("api.tcp.tokens[0].role", ["must be one of: viewer, operator", #""admin""#]),
                ("api.tcp.tokens[0].sha256", ["64 hex digits", #""abc""#]),
                ("api.tcp.tokenFile", [#"duplicate token name ("api" is the tokenFile's)"#, #""api""#]),
                ("api.tcp.listen", ["not a loopback address", #"needs "tls""#, #""0.0.0.0:8502""#]),
                ("api.tcp.hosts[0]", ["host:port", #""lastset.example""#]),
                ("api.tcp.hosts[1]", ["host:port", "3"]),
                ("api.roles.viewers", ["unknown key", "operatorGroups, viewerGroups"]),
                ("api.roles.operatorGroups[1]", ["must be a group name"]),
            ]),
        Bad(
            name: "unknown register type", text: config(registers: #"{ registerId: "p.a", address: 0, type: "uint16" }"#),
            expected: [("pages[0].registers[0].type", ["unknown register type", #""uint16""#])]),
        Bad(
            name: "string too long", text: config(registers: #"{ registerId: "p.a", address: 0, type: "string(251)" }"#),
            expected: [("pages[0].registers[0].type", ["unknown register type", "1...250"])]),
        Bad(
            name: "missing register keys", text: config(registers: #"{ name: "x" }"#),
            expected: [
                ("pages[0].registers[0].registerId", ["required key \"registerId\" is missing"]),
                ("pages[0].registers[0].address", ["required key \"address\" is missing"]),
                ("pages[0].registers[0].type", ["required key \"type\" is missing"]),
            ]),
        Bad(
            name: "register types",
            text: config(
                registers:
                    #"{ registerId: 7, address: "0", type: "u16", min: "1", clone: "no", wordOrder: "middle", access: "w", scale: [1], enum: [1, "2"] }"#
            ),
            expected: [
                ("pages[0].registers[0].registerId", ["must be a string", "an integer", "7"]),
                ("pages[0].registers[0].address", ["must be an integer", "a string"]),
                ("pages[0].registers[0].wordOrder", ["one of: big, little", #""middle""#]),
                ("pages[0].registers[0].min", ["must be a number", #""1""#]),
                ("pages[0].registers[0].enum[1]", ["must be a number", #""2""#]),
                ("pages[0].registers[0].scale", ["must be a number", "an array"]),
                ("pages[0].registers[0].access", ["one of: rw, ro", #""w""#]),
                ("pages[0].registers[0].clone", ["true or false", #""no""#]),
            ]),
        Bad(
            name: "unknown register key",
            text: config(registers: #"{ registerId: "p.a", address: 0, type: "u16", word_order: "big", Max: 3 }"#),
            expected: [
                ("pages[0].registers[0].Max", ["unknown key", "did you mean \"max\"?"]),
                ("pages[0].registers[0].word_order", ["unknown key", "wordOrder"]),
            ]),
        Bad(
            name: "overlap",
            text: config(
                registers: #"""
                    { registerId: "p.a", address: 10, type: "u32" }, { registerId: "p.b", address: 11, type: "u16" },
                    { registerId: "p.c", address: 12, type: "u16" }, { registerId: "p.d", address: 5, type: "string(12)" }
                    """#),
            expected: [
                ("pages[0].registers[3].address", [#"register "p.d" (5...10) overlaps "p.a" (10...11)"#, "5"]),
                ("pages[0].registers[1].address", [#"register "p.b" (11...11) overlaps "p.a" (10...11)"#, "11"]),
            ]),
        Bad(
            name: "duplicate registerId across pages",
            text: #"""
                { version: 1, devices: [], pages: [
                  { id: "p", registers: [ { registerId: "x", address: 0, type: "u16" }, { registerId: "x", address: 1, type: "u16" } ] },
                  { id: "q", registers: [ { registerId: "x", address: 0, type: "u16" } ] } ] }
                """#,
            expected: [
                (
                    "pages[0].registers[1].registerId",
                    ["duplicate registerId", "first used at pages[0].registers[0].registerId", #""x""#]
                ),
                ("pages[1].registers[0].registerId", ["duplicate registerId", "first used at pages[0].registers[0].registerId"]),
            ]),
        Bad(
            name: "duplicate page and device ids",
            text: #"""
                { version: 1,
                  devices: [ { id: "d", endpoint: "tcp://h:1", unit: 1 }, { id: "d", endpoint: "tcp://h:2", unit: 1 } ],
                  pages: [ { id: "p", registers: [] }, { id: "p", registers: [] } ] }
                """#,
            expected: [
                ("pages[1].id", ["duplicate page id", "first used at pages[0].id"]),
                ("devices[1].id", ["duplicate device id", "first used at devices[0].id"]),
            ]),
        Bad(
            name: "two devices on one serial line with different settings",
            text: #"""
                { version: 1,
                  devices: [ { id: "a", endpoint: "rtu:///dev/ttyUSB0?baud=19200", unit: 1 },
                             { id: "b", endpoint: "rtu:///dev/ttyUSB0?baud=19200&parity=N", unit: 2 },
                             { id: "c", endpoint: "rtu:///dev/ttyUSB0?baud=9600", unit: 3 },
                             { id: "d", endpoint: "rtu:///dev/ttyUSB1?baud=9600", unit: 1 } ],
                  pages: [] }
                """#,
            expected: [
                (
                    "devices[2].endpoint",
                    [
                        "serial line /dev/ttyUSB0 is configured with baud=19200 parity=N data=8 stop=1 at devices[0].endpoint",
                        #""rtu:///dev/ttyUSB0?baud=9600""#,
                    ]
                )
            ]),
        Bad(
            name: "duplicates in entries with other problems too",
            text: #"""
                { version: 1,
                  devices: [ { id: "d", endpoint: "tcp://h:1", unit: 1 }, { id: "d", endpoint: "tcp://h:2", unit: 999 } ],
                  pages: [ { id: "p", registers: [ { registerId: "x", address: 0, type: "u16" },
                                                   { registerId: "x", address: 1, type: "u17" } ] },
                           { id: "p", title: 5, registers: [] } ] }
                """#,
            expected: [
                ("pages[0].registers[1].type", ["unknown register type", #""u17""#]),
                ("pages[1].title", ["must be a string"]),
                ("devices[1].unit", ["0...247", "999"]),
                ("pages[1].id", ["duplicate page id", "first used at pages[0].id"]),
                ("devices[1].id", ["duplicate device id", "first used at devices[0].id"]),
                ("pages[0].registers[1].registerId", ["duplicate registerId", "first used at pages[0].registers[0].registerId"]),
            ]),
        Bad(
            name: "an overlap is reported even when the register has another problem",
            text: config(
                registers: #"""
                    { registerId: "p.a", address: 10, type: "u32" }, { registerId: "p.b", address: 11, type: "u16", access: "w" }
                    """#),
            expected: [
                ("pages[0].registers[1].access", ["one of: rw, ro", #""w""#]),
                ("pages[0].registers[1].address", [#"register "p.b" (11...11) overlaps "p.a" (10...11)"#]),
            ]),
        Bad(
            name: "null is never a default, and unsetStyle is checked",
            text: #"""
                { version: 1, history: null,
                  devices: [ { id: "d", endpoint: "tcp://h:1", unit: 1, quirks: null, unsetStyle: "ieee" } ],
                  pages: [ { id: "p", unsetStyle: "sunspec", registers: [ { registerId: "x", address: 0, type: "u16", clone: null } ] } ] }
                """#,
            expected: [
                ("history", ["null is not a value here"]),
                ("pages[0].registers[0].clone", ["null is not a value here"]),
                ("devices[0].quirks", ["null is not a value here"]),
                ("devices[0].unsetStyle", ["one of: maximum, sunspec", #""ieee""#]),
            ]),
        Bad(
            name: "repeated keys",
            text: #"""
                { version: 1, devices: [],
                  pages: [ { id: "p", registers: [ { registerId: "x", address: 0, type: "u16", clone: false, clone: true } ] } ] }
                """#,
            expected: [
                ("pages[0].registers[0].clone", ["line 2, column", #"duplicate key "clone""#])
            ]),
        Bad(
            name: "device names a missing page",
            text: config(device: #"{ id: "dev", endpoint: "tcp://h:1", unit: 1, pages: ["p", "nope", 3] }"#),
            expected: [
                ("devices[0].pages[1]", ["no page has this id", #""nope""#]),
                ("devices[0].pages[2]", ["must be a string", "3"]),
            ]),
        Bad(
            name: "unsafe ids",
            text: config(
                device: #"{ id: "../etc", endpoint: "tcp://h:1", unit: 1 }"#,
                page: #"{ id: "-p", registers: [] }"#),
            expected: [
                ("pages[0].id", ["page id must match [A-Za-z0-9][A-Za-z0-9._-]*", #""-p""#]),
                ("devices[0].id", ["device id must match", #""../etc""#]),
            ]),
        Bad(
            name: "id too long",
            text: config(page: "{ id: \"\(String(repeating: "a", count: 65))\", registers: [] }", registers: ""),
            expected: [("pages[0].id", ["at most 64 characters"]), ("devices[0].pages[0]", ["no page has this id", #""p""#])]),
        Bad(
            name: "bad endpoint and unit",
            text: config(device: #"{ id: "dev", endpoint: "tcp://127.0.0.1:70000", unit: 248, pages: ["p"] }"#),
            expected: [
                ("devices[0].endpoint", ["port \"70000\" is not in 1...65535", #""tcp://127.0.0.1:70000""#]),
                ("devices[0].unit", ["0...247", "248"]),
            ]),
        Bad(
            name: "rtu endpoint", text: config(device: #"{ id: "dev", endpoint: "rtu:///dev/ttyUSB0?baud=1234", unit: 1 }"#),
            expected: [
                ("devices[0].endpoint", [#"unsupported baud "1234""#])
            ]),
        Bad(
            name: "missing device keys", text: config(device: #"{ id: "dev" }"#),
            expected: [
                ("devices[0].endpoint", ["required key \"endpoint\" is missing"]),
                ("devices[0].unit", ["required key \"unit\" is missing"]),
            ]),
        Bad(
            name: "quirks",
            text: config(
                device: #"""
                    { id: "dev", endpoint: "tcp://h:1", unit: 0, poll: "10 s", quirks: { maxReadRegisters: 126, maxWriteRegisters: 0,
                      maxGap: -1, writeFunction: "fc05", requestDelay: "5", timeout: "0ms", retries: 11, extra: 1 } }
                    """#),
            expected: [
                ("devices[0].poll", ["not a duration", #""10 s""#]),
                ("devices[0].quirks.extra", ["unknown key"]),
                ("devices[0].quirks.maxReadRegisters", ["1...125", "126"]),
                ("devices[0].quirks.maxWriteRegisters", ["1...123", "0"]),
                ("devices[0].quirks.maxGap", ["0...125", "-1"]),
                ("devices[0].quirks.writeFunction", ["one of: auto, fc06, fc16", #""fc05""#]),
                ("devices[0].quirks.requestDelay", ["not a duration", #""5""#]),
                ("devices[0].quirks.retries", ["0...10", "11"]),
                ("devices[0].quirks.timeout", ["greater than 0", #""0ms""#]),
            ]),
        Bad(
            name: "backup interval not a duration",
            text: config(device: #"{ id: "dev", endpoint: "tcp://h:1", unit: 1, pages: ["p"], backup: "hourly" }"#),
            expected: [("devices[0].backup", ["not a duration", #""hourly""#])]),
        Bad(
            name: "backup interval below a second",
            text: config(device: #"{ id: "dev", endpoint: "tcp://h:1", unit: 1, pages: ["p"], backup: "500ms" }"#),
            expected: [("devices[0].backup", ["at least 1s", #""500ms""#])]),
        Bad(
            name: "backup of a device without pages",
            text: config(device: #"{ id: "dev", endpoint: "tcp://h:1", unit: 1, backup: "1h" }"#),
            expected: [("devices[0].backup", ["needs pages", #""1h""#])]),
        Bad(
            name: "as-found history below one",
            text: config(top: "version: 1, asFoundHistory: 0,"),
            expected: [("asFoundHistory", ["at least 1", "0"])]),
        Bad(
            name: "min greater than max, enum outside",
            text: config(registers: #"{ registerId: "p.a", address: 0, type: "s16", min: 10, max: 5, enum: [4, 11] }"#),
            expected: [
                ("pages[0].registers[0].min", ["min is greater than max 5", "10"]),
                ("pages[0].registers[0].enum[0]", ["below min 10", "4"]),
                ("pages[0].registers[0].enum[1]", ["above max 5", "11"]),
            ]),
        Bad(
            name: "unset does not fit",
            text: config(
                registers: #"""
                    { registerId: "p.a", address: 0, type: "u16", unset: 65536 }, { registerId: "p.b", address: 1, type: "s16", unset: 65535 },
                    { registerId: "p.c", address: 2, type: "string(2)", unset: "abc" }, { registerId: "p.d", address: 3, type: "u16", unset: "x" },
                    { registerId: "p.e", address: 4, type: "raw(2)", unset: { hex: "0G" } }, { registerId: "p.f", address: 5, type: "u16", unset: true }
                    """#),
            expected: [
                ("pages[0].registers[0].unset", ["unset does not fit u16", "out of range 0...65535", "65536"]),
                ("pages[0].registers[1].unset", ["unset does not fit s16", "65535"]),
                ("pages[0].registers[2].unset", ["unset does not fit string(2)", "longer than 2", #""abc""#]),
                ("pages[0].registers[3].unset", ["unset does not fit u16", "needs a number"]),
                ("pages[0].registers[4].unset", ["must be a number, a string or {hex:"]),
                ("pages[0].registers[5].unset", ["must be a number, a string or {hex:", "true"]),
            ]),
        Bad(
            name: "address range",
            text: config(
                registers: #"""
                    { registerId: "p.a", address: -1, type: "u16" }, { registerId: "p.b", address: 65535, type: "u32" },
                    { registerId: "p.c", address: 65530, type: "string(12)" }
                    """#),
            expected: [  // p.c ends exactly at 65535: fine
                ("pages[0].registers[0].address", ["must not be negative", "-1"]),
                ("pages[0].registers[1].address", ["ends at 65536, beyond the last register 65535", "65535"]),
            ]),
        Bad(
            name: "address not whole", text: config(registers: #"{ registerId: "p.a", address: 1.5, type: "u16" }"#),
            expected: [
                ("pages[0].registers[0].address", ["whole number", "1.5"])
            ]),
        Bad(
            name: "write steps",
            text: config(
                page: #"""
                    { id: "p", beforeWrite: [ { address: 65536, value: -1 }, { value: 1 } ], afterWrite: [ { address: 2304, value: 65536, x: 0 } ], registers: [] }
                    """#),
            expected: [
                ("pages[0].beforeWrite[0].address", ["0...65535", "65536"]),
                ("pages[0].beforeWrite[0].value", ["0...65535", "-1"]),
                ("pages[0].beforeWrite[1].address", ["required key \"address\" is missing"]),
                ("pages[0].afterWrite[0].x", ["unknown key"]),
                ("pages[0].afterWrite[0].value", ["0...65535", "65536"]),
            ]),
        Bad(
            name: "identity",
            text: config(
                page: #"""
                    { id: "p", identity: [ { registerId: "m", address: 0, type: "string(8)", min: 1 }, { registerId: "m", address: -4, type: "text" } ], registers: [] }
                    """#),
            expected: [
                ("pages[0].identity[0].min", ["unknown key"]),
                ("pages[0].identity[1].type", ["unknown register type", #""text""#]),
            ]),
        Bad(
            name: "identity duplicate and range",
            text: config(
                page: #"""
                    { id: "p", identity: [ { registerId: "m", address: 0, type: "u16" }, { registerId: "m", address: 65535, type: "u32" } ], registers: [] }
                    """#),
            expected: [
                ("pages[0].identity[1].address", ["beyond the last register"])
            ]),
        Bad(
            name: "wrong container types", text: #"{ version: 1, devices: {}, pages: [ "p", 3 ] }"#,
            expected: [
                ("pages[0]", ["must be an object", "a string", #""p""#]),
                ("pages[1]", ["must be an object", "a number", "3"]),
                ("devices", ["must be an array", "an object"]),
            ]),
        Bad(
            name: "many problems at once",
            text: #"""
                { version: 1,
                  devices: [ { id: "a b", endpoint: "udp://x", unit: -1, pages: ["q"] } ],
                  pages: [ { id: "p", registers: [ { registerId: "r", address: 0, type: "u8" }, { registerId: "s", address: 0, type: "u16", min: 3, max: 1 } ] } ] }
                """#,
            expected: [
                ("pages[0].registers[0].type", ["unknown register type", #""u8""#]),
                ("pages[0].registers[1].min", ["min is greater than max 1"]),
                ("devices[0].id", ["device id must match", #""a b""#]),
                ("devices[0].endpoint", ["expected tcp://host:port or rtu:///dev/", #""udp://x""#]),
                ("devices[0].unit", ["0...247", "-1"]),
                ("devices[0].pages[0]", ["no page has this id", #""q""#]),
            ]),
    ]

    func testGoldenBadConfigs() {
        for c in cases {
            do {
                _ = try ConfigLoader.check(Data(c.text.utf8), file: "cfg.json5")
                XCTFail("\(c.name): accepted", line: c.line)
            } catch {
                let problems = error.problems
                XCTAssertEqual(problems.map(\.path), c.expected.map(\.path), "\(c.name): \(error)", line: c.line)
                for (problem, expected) in zip(problems, c.expected) {
                    XCTAssertEqual(problem.file, "cfg.json5", line: c.line)
                    let text = problem.message + " got " + problem.value
                    for fragment in expected.fragments {
                        XCTAssertTrue(text.contains(fragment), "\(c.name): \(problem) lacks \(fragment)", line: c.line)
                    }
                }
            }
        }
        XCTAssertGreaterThanOrEqual(cases.count, 30)
    }

    func testProblemDescriptionQuotesTheValue() {
        XCTAssertThrowsError(
            try ConfigLoader.check(Data(Self.config(top: #"version: "one","#).utf8), file: "/etc/lastset/lastset.json")
        ) { error in
            XCTAssertEqual("\(error)", #"/etc/lastset/lastset.json: version: must be an integer, not a string (got "one")"#)
        }
    }
}
