import LastsetFormats

/// The certificate and key (PEM files) the TCP listener serves HTTPS with.
public struct TLSConfig: Codable, Sendable, Hashable {
    /// PEM certificate (chain) file.
    public var cert: String
    /// PEM private key file.
    public var key: String

    /// Creates the TLS settings.
    public init(cert: String, key: String) {
        self.cert = cert
        self.key = key
    }
}
