/// SHA-256 (FIPS 180-4), for template checksums and page-definition hashes; Foundation on Linux has none.
public struct SHA256: Sendable {
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    public init() {}

    /// Hex digest of `bytes`.
    public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var h = SHA256()
        h.update(bytes)
        return h.finalize().hexString.lowercased()
    }

    /// Adds bytes to the message.
    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        length &+= UInt64(bytes.count)
        var state = self.state
        var pending = self.buffer
        let done: Bool? = bytes.withContiguousStorageIfAvailable { Self.absorb($0, &state, &pending) }
        if done == nil {
            Array(bytes).withUnsafeBufferPointer { _ = Self.absorb($0, &state, &pending) }
        }
        self.state = state
        self.buffer = pending
    }

    /// Compresses whole blocks straight from the input; keeps the tail (< 64 bytes) in `pending`.
    private static func absorb(_ input: UnsafeBufferPointer<UInt8>, _ state: inout [UInt32], _ pending: inout [UInt8]) -> Bool {
        guard let base = input.baseAddress, input.count > 0 else { return true }
        var offset = 0
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            if !pending.isEmpty {
                let take = min(64 - pending.count, input.count)
                pending.append(contentsOf: UnsafeBufferPointer(start: base, count: take))
                offset = take
                if pending.count == 64 {
                    pending.withUnsafeBufferPointer { compress($0.baseAddress!, &state, w.baseAddress!) }
                    pending.removeAll(keepingCapacity: true)
                }
            }
            while input.count - offset >= 64 {
                compress(base + offset, &state, w.baseAddress!)
                offset += 64
            }
        }
        if offset < input.count {
            pending.append(contentsOf: UnsafeBufferPointer(start: base + offset, count: input.count - offset))
        }
        return true
    }

    /// The 32-byte digest.
    public mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var tail = buffer
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for i in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        var state = self.state
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            tail.withUnsafeBufferPointer { t in
                var offset = 0
                while offset < t.count {
                    Self.compress(t.baseAddress! + offset, &state, w.baseAddress!)
                    offset += 64
                }
            }
        }
        buffer = []
        return state.flatMap { word in (0..<4).reversed().map { UInt8(truncatingIfNeeded: word >> (UInt32($0) * 8)) } }
    }

    private static func compress(_ block: UnsafePointer<UInt8>, _ state: inout [UInt32], _ w: UnsafeMutablePointer<UInt32>) {
        for i in 0..<16 {
            w[i] =
                UInt32(block[4 * i]) << 24 | UInt32(block[4 * i + 1]) << 16 | UInt32(block[4 * i + 2]) << 8
                | UInt32(block[4 * i + 3])
        }
        for i in 16..<64 {
            let s0 = w[i - 15].rotr(7) ^ w[i - 15].rotr(18) ^ (w[i - 15] >> 3)
            let s1 = w[i - 2].rotr(17) ^ w[i - 2].rotr(19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        k.withUnsafeBufferPointer { k in
            for i in 0..<64 {
                let s1 = e.rotr(6) ^ e.rotr(11) ^ e.rotr(25)
                let ch = (e & f) ^ (~e & g)
                let t1 = h &+ s1 &+ ch &+ k[i] &+ w[i]
                let s0 = a.rotr(2) ^ a.rotr(13) ^ a.rotr(22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }
}

extension UInt32 {
    fileprivate func rotr(_ n: UInt32) -> UInt32 { (self >> n) | (self << (32 - n)) }
}
