import LastsetCore

/// A control-API request body through `RequestBody.decode` (the strict checks and the decoding the router uses
/// for `POST …/capture`, `POST …/apply` and the console's sign-in). The first byte picks the body type.
public enum RequestBodyFuzzTarget: FuzzTarget {
    /// `requestBody`.
    public static let name = "requestBody"

    /// Decodes the rest as a capture (first byte % 3 == 0), apply (1) or sign-in body (2); errors must carry a
    /// message (their code is typed). An apply body the access check reads as a dry run must decode as one, and
    /// one it does not must not: a viewer's request passes the role check only as a dry run.
    public static func run(_ data: [UInt8]) {
        guard let selector = data.first else { return }
        let body = Array(data.dropFirst())
        do {
            switch selector % 3 {
            case 0: _ = try RequestBody.decode(CaptureRequest.self, from: body, shape: CaptureRequest.bodyShape)
            case 1:
                let parsed = RequestBody.Parsed(body)
                let request = try RequestBody.decode(ApplyRequest.self, from: parsed, shape: ApplyRequest.bodyShape)
                precondition(parsed.isDryRun == (request.dryRun == true), "the access check and the body disagree on dryRun")
            default: _ = try RequestBody.decode(SignInRequest.self, from: body, shape: RequestBody.Shape(keys: ["token"]))
            }
        } catch {
            precondition(!error.message.isEmpty, "a refused body needs a message")
        }
    }
}
