import LastsetFormats

/// `POST /v1/changes` body: a change request for one page on one configured device.
public struct ChangeRequestBody: Codable, Sendable, Hashable {
    public var page: String
    public var device: String
    /// The template version (latest when absent).
    public var version: TemplateVersionRef?
    /// Why the change is needed (required).
    public var reason: String

    /// Sets every field.
    public init(page: String, device: String, version: TemplateVersionRef? = nil, reason: String) {
        self.page = page
        self.device = device
        self.version = version
        self.reason = reason
    }
}

/// `POST /v1/changes/{id}/approve` body: a signature.
public struct ChangeSignatureBody: Codable, Sendable, Hashable {
    public var meaning: SignatureMeaning
    public var reason: String

    /// Sets every field.
    public init(meaning: SignatureMeaning, reason: String) {
        self.meaning = meaning
        self.reason = reason
    }
}

/// `POST /v1/changes/{id}/apply` body (optional): the applier's own reason, recorded beside the request's.
public struct ChangeApplyBody: Codable, Sendable, Hashable {
    public var reason: String?

    /// Sets every field.
    public init(reason: String? = nil) { self.reason = reason }
}

extension ChangeRequestBody {
    /// The keys of a change request body.
    public static let bodyShape = RequestBody.Shape(keys: ["page", "device", "version", "reason"])
}

extension ChangeSignatureBody {
    /// The keys of a signature body.
    public static let bodyShape = RequestBody.Shape(keys: ["meaning", "reason"])
}

extension ChangeApplyBody {
    /// The keys of a change's apply body.
    public static let bodyShape = RequestBody.Shape(keys: ["reason"])
}
