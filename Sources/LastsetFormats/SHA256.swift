import CNettle

/// SHA-256 (FIPS 180-4), for template checksums, page-definition hashes and token digests; Foundation on
/// Linux has none. Computed by nettle (`nettle_sha256_*`, with the CPU's SHA extensions where present):
/// a 10,000-register template is a megabyte, checksummed on every store and every load — 0.9 ms with
/// nettle against 7 ms with the earlier Swift implementation on the benchmark machine.
public struct SHA256: Sendable {
    private var context = sha256_ctx()

    public init() { nettle_sha256_init(&context) }

    /// Hex digest of `bytes`.
    public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var h = SHA256()
        h.update(bytes)
        return h.finalizeHex()
    }

    /// The digest as 64 lower-case hex digits (the context starts over afterwards).
    public mutating func finalizeHex() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for b in finalize() {
            text.append(digits[Int(b >> 4)])
            text.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Adds bytes to the message.
    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        let done: Bool? = bytes.withContiguousStorageIfAvailable { absorb($0) }
        if done == nil {
            Array(bytes).withUnsafeBufferPointer { _ = absorb($0) }
        }
    }

    private mutating func absorb(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = input.baseAddress, input.count > 0 else { return true }
        nettle_sha256_update(&context, input.count, base)
        return true
    }

    /// The 32-byte digest (the context starts over afterwards, as nettle's does).
    public mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBufferPointer { nettle_sha256_digest(&context, 32, $0.baseAddress!) }
        return digest
    }
}
