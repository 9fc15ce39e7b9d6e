import Foundation

/// mbpoll as an independent Modbus client; addresses here are 0-based PDU addresses (mbpoll's
/// register numbers are 1-based, the conversion is done here).
public enum Mbpoll {
    /// Reads `count` holding registers once over TCP; returns the words in order.
    public static func readHolding(port: Int, unit: Int, address: Int, count: Int) throws(TestSupportError) -> [UInt16] {
        let output = try run([
            "-m", "tcp", "-a", "\(unit)", "-r", "\(address + 1)", "-c", "\(count)", "-t", "4", "-1", "127.0.0.1", "-p", "\(port)",
        ])
        return try parse(output, count: count)
    }

    /// Reads `count` holding registers once over RTU on `path`.
    public static func readHolding(rtu path: String, baud: Int = 19200, unit: Int, address: Int, count: Int)
        throws(TestSupportError) -> [UInt16]
    {
        let output = try run([
            "-m", "rtu", "-b", "\(baud)", "-P", "none", "-a", "\(unit)", "-r", "\(address + 1)", "-c", "\(count)", "-t", "4",
            "-1", path,
        ])
        return try parse(output, count: count)
    }

    /// Writes holding registers over TCP (FC06 for one value, FC16 for several).
    public static func writeHolding(port: Int, unit: Int, address: Int, values: [UInt16]) throws(TestSupportError) {
        _ = try run(
            ["-m", "tcp", "-a", "\(unit)", "-r", "\(address + 1)", "-t", "4", "127.0.0.1", "-p", "\(port)"]
                + values.map { "\($0)" })
    }

    /// Writes holding registers over RTU on `path` (FC06 for one value, FC16 for several).
    public static func writeHolding(rtu path: String, baud: Int = 19200, unit: Int, address: Int, values: [UInt16])
        throws(TestSupportError)
    {
        _ = try run(
            ["-m", "rtu", "-b", "\(baud)", "-P", "none", "-a", "\(unit)", "-r", "\(address + 1)", "-t", "4", path]
                + values.map { "\($0)" })
    }

    private static func parse(_ output: String, count: Int) throws(TestSupportError) -> [UInt16] {
        // Lines look like "[101]: \t11"; mbpoll prints 16-bit registers as signed numbers.
        var words: [UInt16] = []
        for line in output.split(separator: "\n") where line.hasPrefix("[") {
            // Values above 0x7FFF come as "65386 (-150)": the unsigned word is the first field.
            guard let colon = line.firstIndex(of: ":") else { continue }
            let text =
                line[line.index(after: colon)...].split(separator: " ").first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            if let word = UInt16(text) {
                words.append(word)
            } else if let signed = Int16(text) {
                words.append(UInt16(bitPattern: signed))
            }
        }
        guard words.count == count else {
            throw TestSupportError("mbpoll returned \(words.count) registers, expected \(count): \(output)")
        }
        return words
    }

    private static func run(_ arguments: [String]) throws(TestSupportError) -> String {
        let run = try ProgramRun.run(URL(fileURLWithPath: "/usr/bin/mbpoll"), arguments, mergingStderr: true)
        guard run.status == 0 else {
            throw TestSupportError("mbpoll \(arguments.joined(separator: " ")) exited \(run.status): \(run.stdout)")
        }
        return run.stdout
    }
}
