/// Why a benchmark run cannot go on; the message names the process, command or value at fault.
struct BenchError: Error, CustomStringConvertible {
    /// What went wrong, quoting the bad value.
    var description: String
    /// An error with its message.
    init(_ description: String) { self.description = description }
}
