import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// glibc's allocator, tuned for a daemon whose large jobs come and go: fewer arenas, and freed pages
/// handed back after each job. `malloc.h` is not in Swift's Glibc module, so the two functions are
/// looked up once with `dlsym` (absent on another libc: then nothing is tuned).
enum MallocTuning {
    private typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    private typealias MallocTrim = @convention(c) (Int) -> Int32
    /// `M_ARENA_MAX` from glibc's malloc.h.
    private static let arenaMaxParameter: Int32 = -8
    /// `M_MMAP_THRESHOLD` from glibc's malloc.h.
    private static let mmapThresholdParameter: Int32 = -3

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        #if canImport(Glibc)
            return dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)  // RTLD_DEFAULT
        #else
            return nil
        #endif
    }

    private static let trimFunction: MallocTrim? = symbol("malloc_trim").map { unsafeBitCast($0, to: MallocTrim.self) }
    private static let malloptFunction: Mallopt? = symbol("mallopt").map { unsafeBitCast($0, to: Mallopt.self) }

    /// At most `arenas` malloc arenas (glibc's default is 8 per core, one per thread that allocates:
    /// every connection's serial queue kept the freed memory of its own arena).
    static func limitArenas(_ arenas: Int32 = 2) {
        _ = malloptFunction?(arenaMaxParameter, arenas)
    }

    /// Blocks of at least `bytes` get their own mapping, unmapped when freed. glibc starts at 128 KiB but
    /// raises the threshold to the size of each such block freed (up to 32 MiB): after the first large
    /// replay, every 1–2 MiB record and report buffer came from the heap, and the heap kept the pages.
    /// Setting it fixes it (and turns the adjustment off).
    static func mapLargeBlocks(from bytes: Int32 = 256 << 10) {
        _ = malloptFunction?(mmapThresholdParameter, bytes)
    }

    /// Returns freed memory at the top of the heaps and free pages inside them to the kernel.
    static func trim() {
        _ = trimFunction?(0)
    }
}
