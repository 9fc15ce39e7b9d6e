import Glibc

extension SHA256 {
    /// Why a descriptor could not be hashed: the errno of the read that failed.
    public struct ReadError: Error, Hashable, Sendable {
        /// The errno of the failed `pread`.
        public let errno: Int32
    }

    /// The size and SHA-256 (64 lower-case hex digits) of everything `fd` holds, read with `pread` from offset 0 in
    /// 1 MiB parts (the descriptor's own offset is left alone; an interrupted read is retried): the one loop the
    /// daemon's backup and the CLI's check of the copy it received share.
    public static func of(descriptor fd: Int32) throws(ReadError) -> (bytes: Int64, hex: String) {
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: off_t = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, offset) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ReadError(errno: errno) }
            if n == 0 { break }
            hash.update(buffer[0..<n])
            offset += off_t(n)
        }
        return (Int64(offset), hash.finalizeHex())
    }
}
