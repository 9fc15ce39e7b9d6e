/// Whether a shorter write limit a replay tried after a refused merged write (`WriteRefusal.shorten`)
/// is learned for the device (issue 19, defect 4). A refusal of a merged write proves nothing by itself:
/// one register's illegal value refuses the whole write. Only when every register of the refused write
/// was then acknowledged whole in the shorter writes was the length at fault; a register rejected among
/// them (or not written because the replay stopped) explains nothing, and nothing is learned from it.
/// So a value rejection never lowers the device's learned write limit.
public struct WriteLimitEvidence: Sendable, Hashable {
    /// One shorter limit tried: the limit and the registers (indices of the replay's entries) of the
    /// refused write it re-planned.
    public struct Trial: Sendable, Hashable {
        /// The shorter limit.
        public var limit: Int
        /// The registers of the refused write.
        public var registers: [Int]
        /// A trial from its parts.
        public init(limit: Int, registers: [Int]) {
            self.limit = limit
            self.registers = registers
        }
    }

    /// The limits tried, in order.
    public private(set) var trials: [Trial] = []

    /// No trial yet.
    public init() {}

    /// Records that the refused write of `registers` was re-planned with `limit`.
    public mutating func tried(_ limit: Int, for registers: [Int]) {
        trials.append(Trial(limit: limit, registers: registers))
    }

    /// The limit to learn: the smallest of the trials whose registers were all acknowledged whole
    /// (`acknowledgedWhole(i)`), nil when no trial proved a length limit.
    public func learned(acknowledgedWhole: (Int) -> Bool) -> Int? {
        trials.filter { !$0.registers.isEmpty && $0.registers.allSatisfy(acknowledgedWhole) }.map(\.limit).min()
    }
}
