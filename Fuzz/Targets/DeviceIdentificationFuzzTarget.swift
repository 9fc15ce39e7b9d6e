import LastsetCore

/// FC43/14 answers as a device may send them: the frame length decisions on the raw bytes (RTU and TCP), then
/// `DeviceIdentificationAnswer.parse` and a `DeviceIdentificationReading` fed with the answers. The first byte
/// picks the category asked; the rest is split into answers at each 0x00 0xFE pair.
public enum DeviceIdentificationFuzzTarget: FuzzTarget {
    /// `deviceIdentification`.
    public static let name = "deviceIdentification"

    /// Every answer must parse or be refused with a message; a parsed one keeps its promises.
    public static func run(_ data: [UInt8]) {
        guard let selector = data.first else { return }
        let asked = [IdentificationCategory.basic, .regular, .extended][Int(selector % 3)]
        let rest = Array(data.dropFirst())
        for need in [IdentificationFrame.rtu(rest), IdentificationFrame.tcp(rest)] {
            if case .complete(let n) = need { precondition(n >= 5 && n <= 260, "a frame of \(n) bytes") }
        }
        _ = IdentificationFrame.crcMatches(rest)
        var reading = DeviceIdentificationReading()
        for pdu in split(rest) {
            do {
                let answer = try DeviceIdentificationAnswer.parse(pdu, asked: asked)
                precondition(zip(answer.objects, answer.objects.dropFirst()).allSatisfy { $0.id < $1.id }, "order")
                precondition(answer.objects.allSatisfy { $0.id.category <= asked }, "category")
                if let next = answer.next, let last = answer.objects.last { precondition(next > last.id.rawValue, "progress") }
                if reading.request?.category == asked { try reading.take(answer) }
            } catch {
                precondition(!error.message.isEmpty, "a refusal needs a message")
            }
        }
        _ = reading.result
    }

    private static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        var parts: [[UInt8]] = [[]]
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x00, i + 1 < bytes.count, bytes[i + 1] == 0xFE {
                parts.append([])
                i += 2
            } else {
                parts[parts.count - 1].append(bytes[i])
                i += 1
            }
        }
        return parts
    }
}
