/// What a replay makes of a write request the device answered with an exception: the one decision
/// (issue 19, defect 4), table-tested in `WriteRefusalTests`.
///
/// Exception 03 ("illegal data value") on a request writing one register can only be about that
/// register's value: it is a rejection, never a reason to split the register's words (a split write of
/// a refused value would leave it torn on the device, and a device checking only whole values would
/// take the parts). Only a merged write — several registers — refused with 03 may have been refused
/// for its length; its registers are written again in shorter writes that never split a register.
public enum WriteRefusal: Hashable, Sendable {
    /// FC16 is not implemented (exception 01 under `writeFunction: auto`): the rest as FC06.
    case fallBackToFC06
    /// A merged write refused with exception 03: its registers again in writes of at most
    /// `maxWriteRegisters` words — never fewer than its longest register has.
    case shorten(maxWriteRegisters: Int)
    /// The device rejected the value(s): the write is `rejected` with its exception code and the replay
    /// stops there (under `onError: continue` it goes on with the next write).
    case rejected

    /// The decision for a `function` request of `wordCount` words, writing registers whose full lengths
    /// are `registerLengths` (in request order), answered with exception `exceptionCode`; `writeFunction`
    /// is the device's setting and `fellBackToFC06` whether this replay has already fallen back.
    public static func decide(
        function: WriteRequest.Function, exceptionCode: UInt8, wordCount: Int, registerLengths: [Int],
        writeFunction: WriteFunction, fellBackToFC06: Bool
    ) -> WriteRefusal {
        switch (function, exceptionCode) {
        case (.fc16, 0x01) where writeFunction == .auto && !fellBackToFC06:
            return .fallBackToFC06
        case (.fc16, 0x03) where registerLengths.count > 1:
            // Halved, but never below a register's length: no register is split for a refusal.
            let limit = max(registerLengths.max() ?? 1, wordCount / 2, 1)
            return limit < wordCount ? .shorten(maxWriteRegisters: limit) : .rejected
        default:
            return .rejected
        }
    }
}
