/// What one probe of a unit (one safe read) met, as the scan sees it.
public enum ProbeAnswer: Sendable, Hashable {
    /// The registers were read.
    case words([UInt16])
    /// The device answered with an exception code.
    case exception(UInt8)
    /// Nothing answered within the timeout.
    case timeout
    /// Something answered that was not this unit's answer (a bad CRC, another unit, another function).
    case garbled
    /// The endpoint cannot be used at all (connection refused, no such serial device).
    case unreachable(String)
}

/// Whether a probe found a device: the one decision of a scan, table-tested (`ScanTests`).
public enum ProbeVerdict: Sendable, Hashable {
    /// A device answered: it is there (an exception is an answer too: the device exists, the register or
    /// function does not).
    case present
    /// Nobody answered, or a gateway said nobody is behind it (exception 0A, 0B).
    case absent
    /// A garbled answer: probe once more (line noise, a late reply); a second one counts as absent.
    case probeAgain
    /// The endpoint cannot be scanned: stop and say why.
    case unreachable(String)

    /// The verdict on `answer`, the `attempt`-th probe of the unit (0 first).
    public static func of(_ answer: ProbeAnswer, attempt: Int) -> ProbeVerdict {
        switch answer {
        case .words: return .present
        case .exception(let code): return code == 0x0A || code == 0x0B ? .absent : .present
        case .timeout: return .absent
        case .garbled: return attempt == 0 ? .probeAgain : .absent
        case .unreachable(let why): return .unreachable(why)
        }
    }
}
