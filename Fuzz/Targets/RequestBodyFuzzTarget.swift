import Foundation
import LastsetCore

/// A control-API request body through `RequestBody.decode` (the strict checks and the decoding the router uses
/// for `POST …/capture`, `POST …/apply` and the console's sign-in). The first byte picks the body type.
public enum RequestBodyFuzzTarget: FuzzTarget {
    /// `requestBody`.
    public static let name = "requestBody"

    /// Decodes the rest as a capture (first byte % 3 == 0), apply (1) or sign-in body (2). An apply body the access
    /// check reads as a dry run must decode as one, and one it does not must not: a viewer's request passes the role
    /// check only as a dry run.
    public static func run(_ data: [UInt8]) {
        guard let selector = data.first else { return }
        let body = RequestBody.Parsed(Array(data.dropFirst()))
        switch selector % 3 {
        case 0: _ = check(CaptureRequest.self, body, shape: CaptureRequest.bodyShape)
        case 1:
            if let request = check(ApplyRequest.self, body, shape: ApplyRequest.bodyShape) {
                precondition(body.isDryRun == (request.dryRun == true), "the access check and the body disagree on dryRun")
            }
        default: _ = check(SignInRequest.self, body, shape: RequestBody.Shape(keys: ["token"]))
        }
    }

    /// The body decoded from its one parse; a refusal must carry a message. A body past the strict checks must decode
    /// as the API's `JSONDecoder` decodes its bytes — both or neither, to the same value — so reading it once
    /// changes no answer.
    private static func check<T: Decodable & Equatable>(_ type: T.Type, _ body: RequestBody.Parsed, shape: RequestBody.Shape)
        -> T?
    {
        let once: T?
        do {
            once = try RequestBody.decode(type, from: body, shape: shape)
        } catch {
            precondition(!error.message.isEmpty, "a refused body needs a message")
            once = nil
        }
        if (try? RequestBody.fields(body, shape: shape)) != nil {
            let foundation = try? APICoding.decoder().decode(type, from: Data(body.bytes))
            precondition(foundation == once, "the body decoder and JSONDecoder disagree")
        }
        return once
    }
}
