import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a child's pipe to its end on a thread of its own (blocking `read(2)`), handing each chunk to
/// `onData` and an empty chunk at the end of the stream.
///
/// Not Foundation's `FileHandle.readabilityHandler`: on Linux it corrupts the heap when several pipes are
/// watched while other threads run (swift-corelibs-foundation#3276: "malloc_consolidate(): unaligned
/// fastbin chunk detected", then SIGABRT) — the test process aborted that way on CI while a test started
/// its pymodbus peer.
public final class PipeDrain: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var ended = false

    /// Starts reading `handle` (the read end; its write end must be closed in this process, as
    /// `Process.run` does for a `Pipe` it was given) until end of file or a read error.
    public init(_ handle: FileHandle, name: String, onData: @escaping @Sendable (Data) -> Void) {
        let thread = Thread { [finished, lock] in
            let fd = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    onData(Data(buffer[0..<n]))
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            // The read end is closed at the end of the stream: the `Pipe` stays referenced by its `Process` (and
            // XCTest keeps every test case, so every harness, alive to the end of the run), and ~430 descriptors
            // left open by the suite pushed later sockets past FD_SETSIZE, where libmodbus cannot wait on them.
            try? handle.close()
            onData(Data())
            lock.withLock { self.ended = true }
            finished.signal()
        }
        thread.name = "pipe drain \(name)"
        thread.start()
    }

    /// Whether the stream has ended.
    public var hasEnded: Bool { lock.withLock { ended } }

    /// Waits (at most `timeout`) for the end of the stream; false if it has not ended by then.
    @discardableResult
    public func waitForEnd(timeout: TimeInterval) -> Bool {
        if hasEnded { return true }
        guard finished.wait(timeout: .now() + timeout) == .success else { return false }
        finished.signal()  // later waiters return at once too
        return true
    }
}
