import Foundation
import XCTest

@testable import LastsetCore
import LastsetFormats

/// Shared page definitions: a published definition's name, content and hash; what differs between two definitions,
/// register by register; and the admission rule that keeps another host's version off a page defined otherwise.
final class FleetPageDefinitionTests: XCTestCase {
    private static let page = TemplateAdmissionTests.page

    private static func edited(_ body: (inout PageDefinition) -> Void) -> PageDefinition {
        var p = page
        body(&p)
        return p
    }

    func testAPublishedDefinitionIsNamedByItsHashAndHostAndReadsBackAsItself() throws {
        let hash = CompiledPage(Self.page).hash
        let published = try XCTUnwrap(FleetPageDefinition(Self.page, pageHash: hash, host: "line-a"))
        XCTAssertEqual(published.path, "pages/heating/\(hash.dropFirst(7))@line-a.json")
        let name = FleetPageDefinition.fileName(pageHash: hash, host: "line-a")
        XCTAssertEqual(FleetPageDefinition.parse(fileName: name)?.pageHash, hash)
        XCTAssertEqual(try FleetPageDefinition.decode(published.encoded(), pageId: "heating", fileName: name).get(), published)
        XCTAssertEqual(published.configProblems(), [])
        // Not this definition's hash: nothing to publish.
        XCTAssertNil(FleetPageDefinition(Self.page, pageHash: "sha256:" + String(repeating: "0", count: 64), host: "line-a"))

        let other = Self.edited { $0.title = "Heating (line-b)" }
        let forged = try XCTUnwrap(FleetPageDefinition(other, pageHash: CompiledPage(other).hash, host: "line-a"))
        let cases: [(Data, String, String, FleetRule)] = try [
            (forged.encoded(), "heating", name, .nameMatchesContent),  // another definition under this hash
            (published.encoded(), "cooling", name, .nameMatchesContent),
            (published.encoded(), "heating", FleetPageDefinition.fileName(pageHash: hash, host: "line-b"), .nameMatchesContent),
            (Data("{}".utf8), "heating", name, .content),
            (published.encoded(), "heating", "\(hash.dropFirst(7)).json", .name),
            (published.encoded(), "heating", "\(hash.dropFirst(7).uppercased())@line-a.json", .name),
        ]
        for (data, pageId, fileName, rule) in cases {
            guard case .failure(let refusal) = FleetPageDefinition.decode(data, pageId: pageId, fileName: fileName) else {
                XCTFail("\(pageId)/\(fileName) accepted")
                continue
            }
            XCTAssertEqual(refusal.rule, rule, "\(pageId)/\(fileName): \(refusal.reason)")
        }
    }

    /// A file that does not decode is refused with the decoder's reason: which field, and what is wrong with it.
    func testARefusedDefinitionFileSaysWhatIsWrongInIt() throws {
        let hash = CompiledPage(Self.page).hash
        let published = try XCTUnwrap(FleetPageDefinition(Self.page, pageHash: hash, host: "line-a"))
        let name = FleetPageDefinition.fileName(pageHash: hash, host: "line-a")
        let text = String(decoding: try published.encoded(), as: UTF8.self)
        func edited(_ from: String, _ to: String) -> Data {
            XCTAssertTrue(text.contains(from), from)
            return Data(text.replacingOccurrences(of: from, with: to).utf8)
        }
        let cases: [(Data, [String])] = [
            (edited("\"host\":\"line-a\"", "\"hostname\":\"line-a\""), ["\"host\""]),
            (edited("\"id\":\"heating\"", "\"id\":7"), ["at .definition.id: ", "String"]),
            (edited("\"format\":\"lastset-page-definition\"", "\"format\":\"lastset-page\""), ["its format is \"lastset-page\""]),
            (Data("{\"format\":".utf8), ["not valid JSON"]),
        ]
        for (data, said) in cases {
            guard case .failure(let refusal) = FleetPageDefinition.decode(data, pageId: "heating", fileName: name) else {
                XCTFail("accepted: \(said)")
                continue
            }
            XCTAssertEqual(refusal.rule, .content)
            XCTAssertTrue(refusal.reason.hasPrefix("not a page definition (lastset-page-definition): "), refusal.reason)
            for part in said { XCTAssertTrue(refusal.reason.contains(part), "\(refusal.reason) lacks \(part)") }
        }
    }

    func testADefinitionCompiledUnderADevicesConventionIsPublishedWithItSpeltOut() throws {
        let compiled = CompiledPage(Self.page, deviceStyle: .sunspec)
        XCTAssertNotEqual(compiled.hash, CompiledPage(Self.page).hash)
        let published = try XCTUnwrap(FleetPageDefinition(Self.page, pageHash: compiled.hash, host: "line-a"))
        XCTAssertEqual(published.definition.unsetStyle, .sunspec)
        // Taken on a host without that device, it hashes as the versions captured against it.
        XCTAssertEqual(CompiledPage(published.definition).hash, compiled.hash)
        XCTAssertEqual(published.configProblems(), [])
    }

    func testADefinitionThatWouldNotPassAsConfigIsNotTaken() throws {
        // Two registers on one address: the config checker's overlap rule.
        let overlapping = Self.edited {
            $0.registers.append(RegisterDefinition(registerId: "heating.shadow", address: 100, type: .u16))
        }
        let published = try XCTUnwrap(
            FleetPageDefinition(overlapping, pageHash: CompiledPage(overlapping).hash, host: "line-a"))
        let problems = published.configProblems()
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems.first?.message.contains("overlaps") ?? false, "\(problems)")
    }

    func testWhatDiffersBetweenTwoDefinitionsRegisterByRegister() {
        let there = Self.page
        typealias Case = (String, PageDefinition, [String], [String])
        let cases: [Case] = [
            ("same", there, [], []),
            (
                "a limit", Self.edited { $0.registers[1].max = 800 },
                ["heating.setpoint: max 800 → 900"], []
            ),
            (
                "a layout", Self.edited { $0.registers[2].wordOrder = .big },
                [#"heating.energy: wordOrder "big" → "little""#], []
            ),
            (
                "one register less, one more",
                Self.edited {
                    $0.registers.remove(at: 4)
                    $0.registers.append(RegisterDefinition(registerId: "heating.boost", address: 140, type: .u16))
                },
                ["heating.boost: only here", "heating.label: only in the fleet's"], []
            ),
            ("the title", Self.edited { $0.title = "Heizung" }, [], [#"page title: Heizung → none"#]),
            (
                "the write order", Self.edited { $0.registers.swapAt(0, 1) }, [],
                ["page order: heating.setpoint, heating.mode, heating.energy, heating.ramp, heating.label, heating.hours, comm.unit → heating.mode, heating.setpoint, heating.energy, heating.ramp, heating.label, heating.hours, comm.unit"]
            ),
        ]
        for (name, here, registers, page) in cases {
            let d = PageDefinitionDifference(here: here, there: there)
            XCTAssertEqual(d.registers.map(\.description), registers, name)
            XCTAssertEqual(d.page.map { "page \($0.field): \($0.here ?? "none") → \($0.there ?? "none")" }, page, name)
            XCTAssertEqual(d.isEmpty, CompiledPage(here).hash == CompiledPage(there).hash, name)
        }
    }

    func testAnotherHostsVersionIsWrittenOnlyUnderTheDefinitionItWasCapturedAgainst() {
        var theirs = TemplateAdmissionTests.captured()
        theirs.host = "line-a"
        theirs.archivedAt = Date(timeIntervalSince1970: 1_800_000_000)
        // The very definition: admitted, here as on line-a.
        XCTAssertTrue(TemplateAdmission.admit(theirs, to: CompiledPage(Self.page), localHost: "line-c").isAdmissible)
        // A larger limit here: every entry still fits, but the definition is not the one captured against.
        let looser = CompiledPage(Self.edited { $0.registers[1].max = 950 })
        let admission = TemplateAdmission.admit(theirs, to: looser, localHost: "line-c")
        XCTAssertFalse(admission.isAdmissible)
        XCTAssertEqual(admission.refusals, [])
        XCTAssertEqual(admission.otherDefinition?.host, "line-a")
        XCTAssertTrue(admission.refusalText.contains("lastset fleet page heating --take"), admission.refusalText)
        XCTAssertEqual(TemplateApplicability(admission).refused, [admission.definitionText!])
        // This host's own version, an import (judged as this host's own) and a host in no fleet: the entries decide.
        var own = theirs
        own.host = "line-c"
        XCTAssertTrue(TemplateAdmission.admit(own, to: looser, localHost: "line-c").isAdmissible)
        XCTAssertTrue(TemplateAdmission.admit(theirs, to: looser, localHost: nil).isAdmissible)
        // A page that lost a register: left out for this host's own version, refused for another host's.
        let fewer = CompiledPage(Self.edited { $0.registers.remove(at: 4) })
        XCTAssertTrue(TemplateAdmission.admit(own, to: fewer, localHost: "line-c").isAdmissible)
        XCTAssertFalse(TemplateAdmission.admit(theirs, to: fewer, localHost: "line-c").isAdmissible)
    }
}
