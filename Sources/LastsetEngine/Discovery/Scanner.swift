import Foundation
import LastsetCore
import ModbusLink

/// One sweep of a scan (`POST /v1/scan`): every unit probed with one safe read (FC03, one register at 0) at one
/// line setting, and each unit that answers identified — FC43/14, SunSpec's marker and model chain, the configured
/// pages' identity registers — and judged against the pages' latest templates (`TemplateFit`). Only reads are sent.
///
/// A probe of an absent unit costs exactly its timeout: no retry, and on a serial line no extra quiet time after
/// a timeout (`LinkOptions.drainsLateReplies` off) — a late reply from a slow unit is then met by the next probe as a
/// garbled answer, which that unit is probed again for (`ProbeVerdict`). The line is drained once at the end of the
/// sweep (one timeout), so no late reply outlives the scan.
public struct Scanner: Sendable {
    /// The connection to the line or TCP peer (held whole by the caller's job lock).
    public var connection: ModbusConnection
    /// The endpoint, with the baud of this sweep on a serial line.
    public var endpoint: Endpoint
    /// Per probe: the timeout, no retries, this sweep's line settings.
    public var options: LinkOptions
    /// The configured pages with an identity, and each one's latest template (nil: none archived).
    public var pages: [(page: CompiledPage, latest: Template?)]

    /// A scanner; `timeout` bounds each probe.
    public init(
        connection: ModbusConnection, endpoint: Endpoint, timeout: Duration, pages: [(page: CompiledPage, latest: Template?)]
    ) {
        self.connection = connection
        self.endpoint = endpoint
        var options = LinkOptions(timeout: timeout, retries: 0, requestDelay: .zero, line: endpoint.lineSettings)
        options.drainsLateReplies = false
        self.options = options
        self.pages = pages.filter { !$0.page.identity.isEmpty || !$0.page.identityObjects.isEmpty }
    }

    /// Probes `units` in order; `progress` hears after each. Stops at an unreachable endpoint (thrown with why).
    public func sweep(units: [Int], progress: (@Sendable (Int) -> Void)? = nil) async throws(ScanStop) -> ScanSweep {
        let start = ContinuousClock.now
        let before = await connection.counters.total
        var found: [FoundDevice] = []
        var probes = 0
        for (n, unit) in units.enumerated() {
            if Task.isCancelled { throw ScanStop(reason: "scan cancelled (shutdown) at unit \(unit)") }
            var attempt = 0
            while true {
                let answer = await probe(unit)
                probes += 1
                switch ProbeVerdict.of(answer, attempt: attempt) {
                case .present: found.append(await identify(unit, answered: answer))
                case .absent: break
                case .probeAgain:
                    attempt += 1
                    continue
                case .unreachable(let why): throw ScanStop(reason: why)
                }
                break
            }
            progress?(n + 1)
        }
        // The probes left late replies undrained: the line is drained once before anyone else uses it.
        await connection.drainLine(for: options.timeout)
        let elapsed = (ContinuousClock.now - start).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        let requests = await connection.counters.total - before
        return ScanSweep(baud: endpoint.lineSettings?.baud, found: found, probes: probes, requests: requests, seconds: seconds)
    }

    /// One safe read: FC03, one register at address 0.
    private func probe(_ unit: Int) async -> ProbeAnswer {
        let options = options
        return await connection.batch { link in
            do throws(ModbusError) {
                return .words(try link.readHoldingRegisters(unit: unit, address: 0, count: 1, options: options))
            } catch {
                return Self.answer(error)
            }
        }
    }

    /// A failed probe as the scan sees it.
    static func answer(_ error: ModbusError) -> ProbeAnswer {
        switch error.kind {
        case .exception(let code): return .exception(code)
        case .timeout: return .timeout
        case .badCRC, .badReply, .protocolError, .disconnected: return .garbled
        case .connect, .invalidRequest: return .unreachable(error.description)
        }
    }

    /// What a unit that answered is: its FC43 identification, its SunSpec chain, its pages' identity registers.
    private func identify(_ unit: Int, answered: ProbeAnswer) async -> FoundDevice {
        let options = options
        let pages = pages
        let endpointText = endpoint.description
        return await connection.batch { link in
            var device = FoundDevice(endpoint: endpointText, unit: unit, answered: Self.describe(answered))
            do throws(ModbusError) {
                device.identification = try link.readIdentification(unit: unit, upTo: .extended, options: options)
            } catch {
                device.identificationError = error.exceptionCode == 1 ? "no FC43 (exception 01)" : error.description
            }
            device.sunspec = Self.sunspec(link, unit: unit, options: options)
            for (page, latest) in pages {
                var words: [String: [UInt16]] = [:]
                for reg in page.identity {
                    words[reg.registerId] = try? link.readHoldingRegisters(
                        unit: unit, address: reg.address, count: reg.type.registerCount, options: options)
                }
                if let fit = TemplateFit.judge(page: page, template: latest, words: words, identification: device.identification)
                {
                    device.fits.append(fit)
                }
            }
            return device
        }
    }

    /// The SunSpec chain at the first base holding "SunS", with each model's registers; nil when none does.
    static func sunspec(_ link: isolated ModbusConnection, unit: Int, options: LinkOptions) -> SunSpecChain? {
        for base in SunSpecChain.bases {
            guard let marker = try? link.readHoldingRegisters(unit: unit, address: base, count: 2, options: options),
                marker == SunSpecChain.marker
            else { continue }
            var chain = SunSpecChain(base: base)
            while let at = chain.next {
                guard let header = try? link.readHoldingRegisters(unit: unit, address: at, count: 2, options: options) else {
                    chain.cut = "model header at \(at) could not be read"
                    break
                }
                chain.take(header: header)
                guard var model = chain.models.last, model.id != 0xFFFF, model.address == at else { continue }
                model.words = readBody(link, unit: unit, from: at + 2, count: model.length, options: options)
                chain.models[chain.models.count - 1] = model
            }
            return chain
        }
        return nil
    }

    /// A model's registers, read 125 at a time (nil when a read fails).
    static func readBody(_ link: isolated ModbusConnection, unit: Int, from address: Int, count: Int, options: LinkOptions)
        -> [UInt16]?
    {
        var words: [UInt16] = []
        while words.count < count {
            let n = min(125, count - words.count)
            guard
                let part = try? link.readHoldingRegisters(unit: unit, address: address + words.count, count: n, options: options)
            else { return nil }
            words += part
        }
        return words
    }

    static func describe(_ answer: ProbeAnswer) -> String {
        switch answer {
        case .words: return "registers"
        case .exception(let code): return "exception " + (code < 0x10 ? "0" : "") + String(code, radix: 16, uppercase: true)
        default: return "answer"
        }
    }
}

/// Why a scan stopped before its last unit.
public struct ScanStop: Error, Sendable, CustomStringConvertible {
    /// What happened.
    public var reason: String
    /// The reason.
    public var description: String { reason }
}
