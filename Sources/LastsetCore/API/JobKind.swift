import LastsetFormats

/// What holds a device: a job of the API, or a short read for an import.
public enum JobKind: String, JSONFieldValue, Sendable, Hashable, CustomStringConvertible {
    /// A capture ("save").
    case capture
    /// A replay or dry run ("use last settings").
    case apply
    /// The identity read of an iOS-archive import (`identityFrom=DEVICE`).
    case identityRead = "identity read"
    /// Every page of a device, in config order, in one job (`POST /v1/devices/{id}/apply`).
    case applyAll = "apply-all"
    /// A discovery scan of an endpoint (`POST /v1/scan`): holds the whole line or TCP peer.
    case scan
    /// An as-found backup of a configured device's pages (scheduled, or `POST /v1/devices/{id}/as-found`).
    case backup

    /// The raw value, as the API and the CLI show it.
    public var description: String { rawValue }
}
