import Foundation
import LastsetFormats
import XCTest

@testable import LastsetCore

/// The request body decoder reads what the API's `JSONDecoder` reads, from the strict parser's value: the same
/// values, and the same errors (case, coding path, description), so parsing a body once changes no answer.
final class RequestBodyDecoderTests: XCTestCase {
    private struct Nested: Codable, Equatable { var x: Int }
    /// Every kind of field a body type may grow: lists, nested objects, numbers, dates.
    private struct Probe: Codable, Equatable {
        var list: [Int]?
        var names: [String]?
        var nested: Nested?
        var ratio: Double?
        var small: UInt8?
        var at: Date?
        var flag: Bool?
        var link: URL?
    }

    /// The error as a comparable text: its case, coding path and description.
    private func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.typeMismatch(let t, let c): return "typeMismatch \(t) \(path(c)) \(c.debugDescription)"
        case DecodingError.valueNotFound(let t, let c): return "valueNotFound \(t) \(path(c)) \(c.debugDescription)"
        case DecodingError.keyNotFound(let k, let c): return "keyNotFound \(k.stringValue) \(path(c)) \(c.debugDescription)"
        case DecodingError.dataCorrupted(let c): return "dataCorrupted \(path(c)) \(c.debugDescription)"
        default: return "other \(error)"
        }
    }

    private func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map(\.stringValue).joined(separator: ".")
    }

    /// Decodes `body` both ways; fails the test when they disagree. Returns whether it decoded.
    @discardableResult
    private func agree<T: Decodable & Equatable>(
        _ type: T.Type, _ body: String, file: StaticString = #filePath, line: UInt = #line
    )
        -> Bool
    {
        guard let value = try? StrictJSONParser.parse(Array(body.utf8), syntax: .json) else {
            XCTFail("the strict parser refuses \(body)", file: file, line: line)
            return false
        }
        let foundation = Result { try APICoding.decoder().decode(type, from: Data(body.utf8)) }
        let once = Result { try RequestBodyDecoder.decode(type, from: value) }
        switch (foundation, once) {
        case (.success(let a), .success(let b)):
            XCTAssertEqual(a, b, body, file: file, line: line)
            return true
        case (.failure(let a), .failure(let b)):
            XCTAssertEqual(describe(b), describe(a), body, file: file, line: line)
        case (.success(let a), .failure(let b)):
            XCTFail("\(body): JSONDecoder reads \(a), the body decoder refuses: \(describe(b))", file: file, line: line)
        case (.failure(let a), .success(let b)):
            XCTFail("\(body): the body decoder reads \(b), JSONDecoder refuses: \(describe(a))", file: file, line: line)
        }
        return false
    }

    func testApplyBodies() {
        let bodies = [
            #"{"device":"b"}"#, #"{"device":"b","dryRun":true}"#, #"{"device":"b","dryRun":false}"#,
            #"{"endpoint":"tcp://h:1","unit":3}"#, #"{"unit":1.0}"#, #"{"unit":1e2}"#, #"{"unit":1.5}"#, #"{"unit":-1}"#,
            #"{"unit":-0}"#, #"{"unit":99999999999999999999}"#, #"{"unit":9223372036854775807}"#,
            #"{"unit":9223372036854775808}"#, #"{"unit":1e400}"#, #"{"unit":"1"}"#, #"{"unit":true}"#, #"{"unit":null}"#,
            #"{"unit":[]}"#, #"{"version":3}"#, #"{"version":"3"}"#, #"{"version":"line-7-3"}"#, #"{"version":"latest"}"#,
            #"{"version":0}"#, #"{"version":1.5}"#, #"{"version":-2}"#, #"{"version":"x"}"#, #"{"version":[]}"#,
            #"{"version":null}"#, #"{"onError":"rollback"}"#, #"{"onError":"nope"}"#, #"{"onError":1}"#, #"{"device":1}"#,
            #"{"device":{}}"#, #"{"device":[]}"#, #"{"device":"\u00e9\n"}"#, #"{"expectVersion":"5"}"#,
            #"{"dryRun":"true"}"#, #"{"dryRun":1}"#, #"{"dryRun":null}"#, "{}", "[]", #""x""#, "1", "null", "true",
        ]
        for body in bodies { agree(ApplyRequest.self, body) }
        XCTAssertTrue(agree(ApplyRequest.self, #"{"device":"b","unit":1e2,"version":"line-7-3","onError":"rollback"}"#))
    }

    func testOtherBodies() {
        for body in [#"{"device":"a"}"#, "{}", #"{"device":null}"#, #"{"device":2}"#] { agree(CaptureRequest.self, body) }
        for body in [#"{"token":"x"}"#, #"{"token":5}"#, "{}"] { agree(SignInRequest.self, body) }
        for body in [
            #"{"expectVersions":{"heating":"5","motion":"line-7-2"}}"#, #"{"expectVersions":{"a":1}}"#,
            #"{"expectVersions":[]}"#, #"{"expectVersions":{"a":null}}"#, #"{"expectVersions":{}}"#,
            #"{"onPageFailure":"continue"}"#, #"{"onPageFailure":"x"}"#, #"{"dryRun":true,"onError":"stop"}"#,
        ] {
            agree(ApplyAllRequest.self, body)
        }
        for body in [
            #"{"endpoint":"rtu:///dev/ttyUSB0","units":"3,17","bauds":[9600,19200],"timeout":"100ms"}"#,
            #"{"endpoint":"tcp://h:502"}"#, #"{"bauds":[9600.5]}"#, #"{"bauds":["9600"]}"#, #"{"bauds":[]}"#,
            #"{"endpoint":"e","units":1}"#, #"{"endpoint":"e","timeout":null}"#,
        ] {
            agree(ScanRequest.self, body)
        }
    }

    /// Shapes no body has yet, so a field added later decodes as `JSONDecoder` would.
    func testEveryShape() {
        for body in [
            #"{"list":[1,2,3]}"#, #"{"list":[]}"#, #"{"list":[1,"x"]}"#, #"{"list":[1,null]}"#, #"{"list":{}}"#,
            #"{"list":[1.0,2e0]}"#, #"{"list":[1.5]}"#, #"{"names":["a"]}"#, #"{"names":[["a"]]}"#,
            #"{"nested":{"x":1}}"#, #"{"nested":{}}"#, #"{"nested":{"x":"1"}}"#, #"{"nested":[]}"#,
            #"{"ratio":2.5}"#, #"{"ratio":3}"#, #"{"ratio":"inf"}"#, #"{"ratio":"-inf"}"#, #"{"ratio":"x"}"#,
            #"{"ratio":true}"#, #"{"small":255}"#, #"{"small":256}"#, #"{"small":-1}"#,
            #"{"at":"2026-12-01T10:00:00Z"}"#, #"{"at":"2026-12-01T10:00:00.123+01:00"}"#, #"{"at":"yesterday"}"#,
            #"{"at":5}"#, #"{"flag":false}"#, #"{"flag":"false"}"#, #"{"nested":null}"#, #"{"list":null}"#,
            #"{"names":[null]}"#, #"{"ratio":null}"#, #"{"at":null}"#, "null",
            #"{"link":"https://example.com/a?b=c"}"#, #"{"link":""}"#, #"{"link":"a b"}"#, #"{"link":5}"#,
        ] {
            agree(Probe.self, body)
        }
        // NaN is never equal to itself: compared by what it is.
        let nan = try? RequestBodyDecoder.decode(Probe.self, from: .object(["ratio": .string("nan")]))
        XCTAssertEqual(nan?.ratio?.isNaN, true)
    }
}
