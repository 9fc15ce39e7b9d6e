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

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        #if canImport(Glibc)
            return dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)  // RTLD_DEFAULT
        #else
            return nil
        #endif
    }

    private static let trimFunction: MallocTrim? = symbol("malloc_trim").map { unsafeBitCast($0, to: MallocTrim.self) }

    /// At most `arenas` malloc arenas (glibc's default is 8 per core, one per thread that allocates:
    /// every connection's serial queue kept the freed memory of its own arena).
    static func limitArenas(_ arenas: Int32 = 2) {
        guard let f = symbol("mallopt").map({ unsafeBitCast($0, to: Mallopt.self) }) else { return }
        _ = f(arenaMaxParameter, arenas)
    }

    /// Returns freed memory at the top of the heaps and free pages inside them to the kernel.
    static func trim() {
        _ = trimFunction?(0)
    }
}
