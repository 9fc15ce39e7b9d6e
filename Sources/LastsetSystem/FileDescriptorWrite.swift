import Glibc

/// Writing to a file descriptor: `write(2)` may take fewer bytes than asked, or be interrupted by a signal before it
/// takes any (EINTR); both go on where it stopped. The one loop the CLI's output files and terminal, the daemon's log,
/// the client's downloads and the appended audit lines share.
public enum FileDescriptorWrite {
    /// Writes every byte of `bytes` to `fd`: nil when all were written, else the errno of the write that failed (EIO
    /// for one that wrote nothing without an error).
    public static func all(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, base + offset, bytes.count - offset)
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return n < 0 ? errno : EIO
            }
        }
        return nil
    }

    /// Writes every byte of `bytes` to `fd` (`all` over the array's bytes).
    public static func all(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { all(fd, $0) }
    }
}
