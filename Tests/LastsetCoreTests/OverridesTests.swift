import Foundation
import LastsetFormats
import XCTest

@testable import LastsetCore

/// Layered templates (docs/OVERRIDES.md): the effective-value decision, the band, the config's checks of every
/// override (with the device or group, the register and the value named), the compiled layers, conformance and
/// rollout against the effective value — table-driven, no server.
final class OverridesTests: XCTestCase {
    private static let device = OverrideValue(words: [7], value: .unsigned(7), origin: .device("m1"))
    private static let group = OverrideValue(words: [5], value: .unsigned(5), origin: .group("line-a"))

    func testTheEffectiveValueDecision() {
        typealias Row = (String, [UInt16]?, RegisterEligibility, OverrideValue?, OverrideValue?, EffectiveValue?)
        let rows: [Row] = [
            ("template alone", [1], .eligible, nil, nil, EffectiveValue(words: [1], source: .template)),
            ("no template value, no override", nil, .eligible, nil, nil, nil),
            ("the device's own value beats the template", [1], .eligible, Self.device, nil,
             EffectiveValue(words: [7], source: .override, origin: .device("m1"))),
            ("the group's value beats the template", [1], .eligible, nil, Self.group,
             EffectiveValue(words: [5], source: .override, origin: .group("line-a"))),
            ("the device's beats its group's", [1], .eligible, Self.device, Self.group,
             EffectiveValue(words: [7], source: .override, origin: .device("m1"))),
            ("an override fills a register the template skipped as not set", nil, .eligible, nil, Self.group,
             EffectiveValue(words: [5], source: .override, origin: .group("line-a"))),
            ("clone: false is written from an override", nil, .skipped(.notCloned), Self.device, nil,
             EffectiveValue(words: [7], source: .override, origin: .device("m1"))),
            ("clone: false is never written from the template", [1], .skipped(.notCloned), nil, nil, nil),
            ("read-only is never written, override or not", [1], .skipped(.readOnly), Self.device, Self.group, nil),
        ]
        for (name, template, eligibility, device, group, want) in rows {
            XCTAssertEqual(
                EffectiveValue.decide(template: template, eligibility: eligibility, device: device, group: group), want, name)
        }
    }

    func testTheBand() {
        let rows: [(Tolerance, Double, Double, Bool)] = [
            (.absolute(0.1), 21.53, 21.5, true),
            (.absolute(0.1), 21.5, 21.6, true),  // the edge is inside
            (.absolute(0.1), 21.5, 21.7, false),
            (.absolute(0), 3, 3, true),
            (.absolute(0), 3, 4, false),
            (.percent(2), 100, 102, true),
            (.percent(2), 100, 102.5, false),
            (.percent(2), -100, -98, true),  // of |expected|
            (.percent(50), 0, 0.0001, false),  // a band around 0 in percent is 0 wide
            (.absolute(1), 1, .nan, false),
            (.absolute(1), 1, .infinity, false),
        ]
        for (tolerance, expected, live, want) in rows {
            XCTAssertEqual(tolerance.contains(live, around: expected), want, "\(live) in \(tolerance) around \(expected)")
        }
        // f32 words: 20.1 as an f32 is 20.100000381…, on the edge of a 0.1 band around 20.0.
        XCTAssertTrue(Tolerance.absolute(0.1).contains(Double(Float(20.1)), around: 20))
    }

    // MARK: the config

    static func config(_ overrides: String, csv: String? = nil, extraDevice: String = "") -> String {
        """
        {
          version: 1,
          devices: [
            { id: "m1", endpoint: "tcp://127.0.0.1:1502", unit: 1, pages: ["p"] },
            { id: "m2", endpoint: "tcp://127.0.0.1:1503", unit: 1, pages: ["p"] },
            { id: "m3", endpoint: "tcp://127.0.0.1:1504", unit: 1, pages: ["q"] },
            \(extraDevice)
          ],
          pages: [
            { id: "p", registers: [
              { registerId: "mode", address: 0, type: "u16", enum: [0, 1, 2] },
              { registerId: "setpoint", address: 1, type: "s16", min: -200, max: 900 },
              { registerId: "ramp", address: 2, type: "f32" },
              { registerId: "label", address: 4, type: "string(8)" },
              { registerId: "unitId", address: 10, type: "u16", clone: false },
              { registerId: "hours", address: 11, type: "u16", access: "ro" },
              { registerId: "offset", address: 12, type: "s16", unset: 0 },
            ] },
            { id: "q", registers: [ { registerId: "other", address: 0, type: "u16" } ] },
          ],
          overrides: \(overrides),
        }
        """
    }

    private func check(_ text: String, csv: String? = nil) -> Result<CompiledConfig, ConfigErrors> {
        let read: ConfigIncludes.Reader = { path in
            guard path == "/etc/lastset/values.csv", let csv else { return .failure(.init("no such file")) }
            return .success(Data(csv.utf8))
        }
        do throws(ConfigErrors) {
            return .success(try CompiledConfig(try ConfigLoader.check(Data(text.utf8), file: "/etc/lastset/lastset.json", read: read)))
        } catch {
            return .failure(error)
        }
    }

    func testALayeredConfigCompilesEachDevicesOwnLayer() throws {
        let text = Self.config(
            """
            { groups: { "line-a": ["m1", "m2"] },
              values: { "line-a": { label: "LINE A", setpoint: 100 }, m1: { setpoint: 215, unitId: 11 } },
              tolerances: { ramp: { absolute: 0.1 }, setpoint: { percent: 1 } },
              csv: "values.csv" }
            """)
        let csv = "device,registerId,value\nm2,unitId,12\nm2,ramp,12.5\n"
        let config = try check(text, csv: csv).get()
        let p1 = try XCTUnwrap(config.page("p", on: "m1"))
        XCTAssertEqual(p1.layer.device["setpoint"]?.words, [215])
        XCTAssertEqual(p1.layer.device["unitId"]?.words, [11])
        XCTAssertEqual(p1.layer.group["label"]?.value, .text("LINE A"))
        XCTAssertEqual(p1.layer.group["label"]?.origin, .group("line-a"))
        XCTAssertEqual(p1.layer.tolerances, ["ramp": .absolute(0.1), "setpoint": .percent(1)])
        let p2 = try XCTUnwrap(config.page("p", on: "m2"))
        XCTAssertEqual(p2.layer.device["unitId"]?.words, [12])
        XCTAssertEqual(p2.layer.device["ramp"]?.value, .float(12.5))
        XCTAssertNil(p2.layer.device["setpoint"], "m1's value never reaches m2")
        XCTAssertEqual(p2.layer.group["setpoint"]?.words, [100])
        // A device outside the group, an ad-hoc target: no values, the tolerances only.
        XCTAssertEqual(config.page("q", on: "m3")?.layer.overridesValues, false)
        XCTAssertEqual(config.page("p", on: nil)?.layer.overridesValues, false)
        XCTAssertEqual(config.page("p", on: nil)?.layer.tolerances["ramp"], .absolute(0.1))
        // The page hash is the master's on every device: templates stay admissible.
        XCTAssertEqual(p1.hash, config.page("p")?.hash)
    }

    func testEveryBadOverrideIsAProblemNamingTheDeviceOrGroupAndTheRegister() {
        let text = Self.config(
            """
            { groups: { "line-a": ["m1", "m3"], m2: ["m1"], empty: [], "bad group": ["nobody"] },
              values: {
                m1: { mode: 5, setpoint: 950, ramp: "fast", hours: 3, offset: 0, nosuch: 1, label: "much too long" },
                ghost: { mode: 1 },
                "line-a": { mode: 1 },
                m3: { other: 70000 },
              },
              tolerances: { label: { absolute: 1 }, ramp: { absolute: -1 }, setpoint: { absolute: 1, percent: 2 },
                            nosuch: { percent: 1 } },
              csv: "values.csv" }
            """)
        let csv = "device,registerId,value\nm2,setpoint,abc\nm2,mode,2\nm2,mode,1\n"
        guard case .failure(let errors) = check(text, csv: csv) else { return XCTFail("accepted") }
        let lines = errors.problems.map(\.description)
        let want = [
            "overrides.groups.m2: a group id must not be a device id",
            "overrides.groups.empty: a group needs at least one device",
            "overrides.groups.bad group: group id must match",
            "overrides.groups.bad group[0]: must be the id of a configured device (got \"nobody\")",
            "overrides.values.m1.mode: m1 → mode: breaks the register's rule: not one of [0, 1, 2] (got 5)",
            "overrides.values.m1.setpoint: m1 → setpoint: breaks the register's rule: above max 900 (got 950)",
            "overrides.values.m1.ramp: m1 → ramp: not a value of the register's type: f32 needs a number",
            "overrides.values.m1.hours: m1 → hours: the register is read-only",
            "overrides.values.m1.offset: m1 → offset: is the register's \"not set\" value",
            "overrides.values.m1.nosuch: no page has a register with the id \"nosuch\"",
            "overrides.values.m1.label: m1 → label: not a value of the register's type: text is 13 UTF-8 bytes",
            "overrides.values.ghost.mode: no device or group has the id \"ghost\"",
            "overrides.values.line-a.mode: device m3 does not have page \"p\" (the page of mode)",
            "overrides.values.m3.other: m3 → other: not a value of the register's type: out of range 0...65535",
            "/etc/lastset/values.csv: line 2 (m2, setpoint): not a value of setpoint's type s16",
            "/etc/lastset/values.csv: line 4 (m2, mode): m2 sets mode twice (first at /etc/lastset/values.csv line 3)",
            "overrides.tolerances.label: only a number register has a tolerance",
            "overrides.tolerances.ramp: absolute must be a finite number ≥ 0",
            "overrides.tolerances.setpoint: give exactly one of absolute (raw units) or percent",
            "overrides.tolerances.nosuch: no page has a register with this id",
        ]
        for w in want {
            XCTAssertTrue(lines.contains { $0.contains(w) }, "missing: \(w)\nin:\n" + lines.joined(separator: "\n"))
        }
    }

    func testADeviceInTwoGroupsSettingOneRegisterIsAProblemUnlessItHasItsOwnValue() {
        let groups = #"groups: { a: ["m1", "m2"], b: ["m2"] }"#
        let clash = Self.config("{ \(groups), values: { a: { mode: 1 }, b: { mode: 2 } } }")
        guard case .failure(let errors) = check(clash) else { return XCTFail("accepted") }
        XCTAssertTrue(errors.description.contains("device m2 is in groups a and b, which both set mode"), errors.description)
        let settled = Self.config("{ \(groups), values: { a: { mode: 1 }, b: { mode: 2 }, m2: { mode: 0 } } }")
        XCTAssertEqual(try check(settled).get().page("p", on: "m2")?.layer.device["mode"]?.words, [0])
    }

    func testAMissingCSVAndABadHeaderAreProblems() {
        let text = Self.config(#"{ csv: "values.csv" }"#)
        guard case .failure(let missing) = check(text, csv: nil) else { return XCTFail("accepted") }
        XCTAssertTrue(missing.description.contains("cannot read the overrides CSV /etc/lastset/values.csv"), missing.description)
        guard case .failure(let header) = check(text, csv: "id,register,value\nm1,mode,1\n") else { return XCTFail("accepted") }
        XCTAssertTrue(header.description.contains("the header must name the columns device, registerId and value"))
    }

    // MARK: the replay's view, conformance and rollout

    func testEffectiveEntriesAndWhatAMasterEditChanges() throws {
        let config = try check(
            Self.config(#"{ groups: { g: ["m1", "m2"] }, values: { g: { label: "G" }, m1: { setpoint: 215, unitId: 11 } } }"#)
        ).get()
        let p1 = try XCTUnwrap(config.page("p", on: "m1"))
        let p2 = try XCTUnwrap(config.page("p", on: "m2"))
        // The master holds mode, setpoint and ramp (label "not set", skipped).
        let master: [(position: Int, words: [UInt16])] = [(0, [1]), (1, [100]), (2, [0x41A0, 0])]
        let e1 = EffectiveTemplate.entries(admitted: master, page: p1)
        XCTAssertEqual(e1.map(\.position), [0, 1, 2, 3, 4])
        XCTAssertEqual(e1.map(\.value.source), [.template, .override, .template, .override, .override])
        XCTAssertEqual(e1[1].value.words, [215])
        let e2 = EffectiveTemplate.entries(admitted: master, page: p2)
        XCTAssertEqual(e2.map(\.position), [0, 1, 2, 3], "no unitId on m2: it has no value of its own")
        XCTAssertEqual(e2[1].value.words, [100])
        // What each holds after applying the master; a new master changes setpoint and mode.
        func held(_ entries: [EffectiveTemplate.Entry], _ page: CompiledPage) -> [RecordedValue] {
            entries.map {
                RecordedValue(
                    registerId: page.registers[$0.position].registerId, address: 0, valueData: $0.value.words.hexString,
                    value: .unsigned(0))
            }
        }
        let setpointOnly: [(position: Int, words: [UInt16])] = [(0, [1]), (1, [120]), (2, [0x41A0, 0])]
        XCTAssertEqual(
            EffectiveTemplate.changes(EffectiveTemplate.entries(admitted: setpointOnly, page: p1), on: p1, applied: held(e1, p1)), [],
            "m1 overrides setpoint: unchanged")
        XCTAssertEqual(
            EffectiveTemplate.changes(EffectiveTemplate.entries(admitted: setpointOnly, page: p2), on: p2, applied: held(e2, p2)),
            ["setpoint"])
        let modeToo: [(position: Int, words: [UInt16])] = [(0, [2]), (1, [120]), (2, [0x41A0, 0])]
        XCTAssertEqual(
            EffectiveTemplate.changes(EffectiveTemplate.entries(admitted: modeToo, page: p1), on: p1, applied: held(e1, p1)),
            ["mode"])
    }

    func testNoDriftInsideTheBandAndEveryValueOutsideReported() {
        let origin = EntryOrigin(source: .template, tolerance: .absolute(0.1))
        let expected = [
            RecordedValue(
                registerId: "ramp", address: 2, valueData: [UInt16](Float(21.53).words).hexString, value: .float(Double(Float(21.53))),
                origin: origin),
            RecordedValue(registerId: "mode", address: 0, valueData: "0001", value: .unsigned(1)),
        ]
        func live(_ ramp: Float, mode: UInt16 = 1) -> [LiveValue] {
            [
                LiveValue(
                    registerId: "ramp", address: 2, valueData: [UInt16](ramp.words).hexString, value: .float(Double(ramp)),
                    lastDate: Date(), error: nil),
                LiveValue(registerId: "mode", address: 0, valueData: [mode].hexString, value: .unsigned(UInt64(mode)), lastDate: Date(), error: nil),
            ]
        }
        XCTAssertEqual(Conformance.compare(expected: expected, live: live(21.5)), .conforms, "rounded to 0.1: inside")
        XCTAssertEqual(Conformance.compare(expected: expected, live: live(21.6)), .conforms)
        guard case .drifted(let out) = Conformance.compare(expected: expected, live: live(21.7)) else { return XCTFail("no drift") }
        XCTAssertEqual(out.map(\.registerId), ["ramp"])
        guard case .drifted(let both) = Conformance.compare(expected: expected, live: live(19, mode: 2)) else {
            return XCTFail("no drift")
        }
        XCTAssertEqual(both.map(\.registerId), ["ramp", "mode"], "a register without a band is exact")
    }

    func testRolloutStandingOfAnOlderVersionWithoutChanges() {
        let applied = AppliedSummary(version: 1, appliedAt: Date(), appliedBy: "u", job: nil)
        let c = PageConformance(device: "m1", pageId: "p", state: .conforms, applied: applied)
        XCTAssertEqual(Rollout.standing(c, latestVersion: "2", mark: nil, changes: []), .equivalent)
        XCTAssertEqual(Rollout.standing(c, latestVersion: "2", mark: nil, changes: ["mode"]), .older)
        XCTAssertEqual(Rollout.standing(c, latestVersion: "2", mark: nil, changes: nil), .older)
        XCTAssertEqual(Rollout.standing(c, latestVersion: "1", mark: nil, changes: ["mode"]), .latest)
    }
}

extension Float {
    /// The f32's words, high first.
    fileprivate var words: [UInt16] { [UInt16(bitPattern >> 16), UInt16(bitPattern & 0xFFFF)] }
}
