import LastsetCore
import ModbusLink

/// "Use last settings": writes a template's valid values to a target in page order, verifies them by
/// reading back, and reports register by register. Nothing is written before every check has passed.
public struct Replay {
    let page: CompiledPage
    let template: Template
    let target: DeviceTarget
    let options: ReplayOptions
    let progress: ProgressHandler?

    private var report: ReplayReport
    /// Template entries re-checked against the current page, in page order.
    private var entries: [(entry: TemplateEntry, definition: RegisterDefinition, words: [UInt16])] = []
    /// Index of each registerId in `entries` (lookups per register must not scan the page).
    private var position: [String: Int] = [:]
    private var results: [String: RegisterResult] = [:]
    private var snapshot: PageReadout?

    /// Runs a replay and returns its report (never throws: every failure is in the report).
    public static func run(
        page: CompiledPage, template: Template, to target: DeviceTarget, options: ReplayOptions = ReplayOptions(),
        progress: ProgressHandler? = nil
    ) async -> ReplayReport {
        var replay = Replay(page: page, template: template, target: target, options: options, progress: progress)
        await replay.execute()
        return replay.report
    }

    private init(
        page: CompiledPage, template: Template, target: DeviceTarget, options: ReplayOptions, progress: ProgressHandler?
    ) {
        self.page = page
        self.template = template
        self.target = target
        self.options = options
        self.progress = progress
        report = ReplayReport(
            pageId: page.id, templateVersion: template.version, pageHash: template.pageHash, target: target.label,
            endpoint: target.endpoint.description, unit: target.unit, options: options, status: .failed, reason: nil,
            stoppedAt: nil, warnings: [], identity: [], beforeWrite: [], afterWrite: [], registers: [], plan: [],
            fellBackToFC06: false, rollback: nil, requests: 0, writeFrames: 0)
    }

    private mutating func execute() async {
        guard target.unit != 0 else {
            // Unit 0 is broadcast: every device on the line would take the writes, and none answers a read.
            report.status = .refused
            report.reason =
                "unit 0 is the broadcast address: a replay there would write to every device on the line and could not be verified"
            return
        }
        guard checkTemplate() else { return }
        guard await checkIdentity() else { return }
        let planned = entries.map { PlannedWrite(registerId: $0.entry.registerId, address: $0.entry.address, words: $0.words) }
        report.plan = RequestPlanner.writes(planned, limits: target.limits).map {
            PlannedRequest(function: $0.function, address: $0.address, count: $0.words.count, registerIds: $0.registerIds)
        }
        // Always read what the target holds now: the dry-run diff, the rollback snapshot, and the
        // "before" of every register in the report and the audit log.
        guard await takeSnapshot() else { return }
        if options.dryRun {
            report.status = .planned
            finishRegisters()
            return
        }
        if Task.isCancelled {
            report.stoppedAt = "shutdown before the first write"
            report.reason = "stopped by shutdown at a clean point: nothing written"
            finishRegisters()
            return
        }
        guard await runSteps(page.beforeWrite, into: \.beforeWrite, label: "beforeWrite") else {
            finishRegisters()
            report.afterWrite = page.afterWrite.map {
                StepResult(address: $0.address, value: $0.value, status: "notAttempted")
            }
            return
        }
        await writeEntries(planned)
        finishRegisters()
        let allVerified = report.registers.allSatisfy { $0.status == .verified }
        if allVerified {
            if await runSteps(page.afterWrite, into: \.afterWrite, label: "afterWrite") {
                report.status = .succeeded
            }
        } else {
            report.afterWrite = page.afterWrite.map {
                StepResult(address: $0.address, value: $0.value, status: "notAttempted", message: "not every register verified")
            }
            let bad = report.registers.filter { $0.status != .verified }
            report.reason = report.reason ?? "\(bad.count) of \(report.registers.count) registers not verified"
            if options.onError == .rollback { await rollBack() }
        }
    }

    // MARK: checks before any write

    /// Every entry must still match the page (address, length) and be writable, cloned, set and valid.
    private mutating func checkTemplate() -> Bool {
        var problems: [String] = []
        if template.pageId != page.id {
            problems.append("template is for page \"\(template.pageId)\", not \"\(page.id)\"")
        }
        if template.pageHash != page.hash {
            report.warnings.append(
                "page definition changed since capture (template \(template.pageHash), page now \(page.hash)); entries re-checked"
            )
        }
        var seen = Set<String>()
        for entry in template.entries {
            guard seen.insert(entry.registerId).inserted else {
                problems.append("\(entry.registerId): appears twice in the template")
                continue
            }
            guard let register = page.register(entry.registerId) else {
                problems.append("\(entry.registerId): not a register of page \"\(page.id)\" any more")
                continue
            }
            let def = register.definition
            let words = entry.words
            if def.address != entry.address || def.length != entry.length {
                problems.append(
                    "\(entry.registerId): template has address \(entry.address) length \(entry.length), page has \(def.address) length \(def.length)"
                )
            } else if words.count != def.length || [UInt8](hexString: entry.valueData) == nil {
                problems.append("\(entry.registerId): valueData \"\(entry.valueData)\" is not \(def.length * 2) bytes of hex")
            } else {
                switch RegisterClassifier.classify(words, register) {
                case .skip(.readOnly): problems.append("\(entry.registerId): read-only, never written")
                case .skip(.notCloned): problems.append("\(entry.registerId): clone: false, never written")
                case .skip(.unset): problems.append("\(entry.registerId): holds the \"not set\" default, never written")
                case .invalid(let rule):
                    problems.append("\(entry.registerId): value \(RegisterCodec.decode(words, as: def)) breaks \(rule)")
                case .archive: entries.append((entry, def, words))
                }
            }
        }
        entries.sort { page.position(of: $0.entry.registerId)! < page.position(of: $1.entry.registerId)! }
        position = Dictionary(entries.enumerated().map { ($1.entry.registerId, $0) }, uniquingKeysWith: { a, _ in a })
        results.reserveCapacity(entries.count)
        guard problems.isEmpty else {
            report.status = .refused
            report.reason = "template not valid for the page: " + problems.joined(separator: "; ")
            return false
        }
        return true
    }

    /// The target's identity registers must hold what the template's source held.
    private mutating func checkIdentity() async -> Bool {
        let identity = page.identity
        guard !identity.isEmpty else { return true }
        progress?(JobProgress(phase: "checking identity", done: 0, total: identity.count))
        let readout = await PageReader.read(
            identity.map { AddressSpan(address: $0.address, length: $0.type.registerCount) }, from: target)
        report.requests += readout.requests
        var ok = true
        for reg in identity {
            let span = AddressSpan(address: reg.address, length: reg.type.registerCount)
            let recorded = template.source.identity.first { $0.registerId == reg.registerId }
            var check = IdentityCheck(
                registerId: reg.registerId, expected: recorded?.value, actual: nil, matches: false, message: nil)
            if let words = readout.words(for: span) {
                check.actual = RegisterCodec.decode(words, as: reg.definition)
                if let recorded {
                    check.matches = recorded.valueData == words.bigEndianBytes.hexString
                    if !check.matches { check.message = "expected \(recorded.value), target has \(check.actual!)" }
                } else {
                    check.message = "the template recorded no value for it"
                }
            } else {
                check.message = "cannot read: \(readout.failures[span].map(String.init(describing:)) ?? "no data")"
            }
            ok = ok && check.matches
            report.identity.append(check)
        }
        if !ok {
            report.status = .refused
            let bad = report.identity.filter { !$0.matches }.map { "\($0.registerId): \($0.message ?? "")" }
            report.reason = "identity mismatch, nothing written: " + bad.joined(separator: "; ")
        }
        return ok
    }

    /// Reads the target's current values of every entry (dry-run diff, rollback snapshot, "before" values).
    /// Only a rollback needs every value: without one an unreadable register just has no "before".
    private mutating func takeSnapshot() async -> Bool {
        progress?(JobProgress(phase: "reading current values", done: 0, total: entries.count))
        let readout = await PageReader.read(
            entries.map { AddressSpan(address: $0.entry.address, length: $0.entry.length) }, from: target)
        report.requests += readout.requests
        snapshot = readout
        let unreadable = entries.filter { readout.words(for: span($0.entry)) == nil }
        if options.onError == .rollback && !options.dryRun && !unreadable.isEmpty {
            report.status = .refused
            report.reason =
                "cannot snapshot the target for rollback, nothing written: "
                + unreadable.map {
                    "\($0.entry.registerId): \(readout.failures[span($0.entry)].map(String.init(describing:)) ?? "no data")"
                }
                .joined(separator: "; ")
            return false
        }
        return true
    }

    // MARK: writing

    private func span(_ e: TemplateEntry) -> AddressSpan { AddressSpan(address: e.address, length: e.length) }

    private mutating func runSteps(_ steps: [WriteStep], into path: WritableKeyPath<ReplayReport, [StepResult]>, label: String)
        async -> Bool
    {
        var failedAt: Int?
        for (i, step) in steps.enumerated() {
            if failedAt != nil {
                report[keyPath: path].append(StepResult(address: step.address, value: step.value, status: "notAttempted"))
                continue
            }
            report.requests += 1
            report.writeFrames += 1
            do {
                try await target.writeSingle(address: step.address, value: UInt16(truncatingIfNeeded: step.value))
                // Read back like every other write. Unlock and commit registers are often commands that
                // clear themselves, so a different value is reported, not treated as a failure.
                report.requests += 1
                var result = StepResult(address: step.address, value: step.value, status: "ok")
                do {
                    result.readBack = Int(try await target.readHolding(address: step.address, count: 1)[0])
                    if result.readBack != step.value {
                        result.message = "reads back \(result.readBack!) (a command register that clears itself?)"
                        report.warnings.append(
                            "\(label)[\(i)]: wrote \(step.value) to \(step.address), reads back \(result.readBack!)")
                    }
                } catch {
                    result.message = "written; read-back failed: \(error)"
                    report.warnings.append("\(label)[\(i)]: read-back of \(step.address) failed: \(error)")
                }
                report[keyPath: path].append(result)
            } catch {
                failedAt = i
                report[keyPath: path].append(
                    StepResult(address: step.address, value: step.value, status: "failed", message: error.description))
                report.stoppedAt = "\(label)[\(i)]"
                report.reason = "\(label)[\(i)] (write \(step.value) to \(step.address)) failed: \(error)"
            }
        }
        return failedAt == nil
    }

    /// What one write group did on the device.
    private struct GroupOutcome: Sendable {
        /// Requests of the group that were written (a prefix of it).
        var written = 0
        /// The request that failed (its index in the group) and why.
        var failure: (index: Int, error: ModbusError)?
        /// Shutdown was requested before the whole group was written.
        var cancelled = false
        /// The read-back of the written requests: the words from `start`, or why it failed.
        var readback: Result<[UInt16], ModbusError>?
        var start = 0
        var requests = 0
    }

    /// Writes in page order, verifying in groups: consecutive writes that form one contiguous span a
    /// read can cover are written and read back in one hop onto the connection's executor. A group is
    /// verified before the next one is written, so a mismatch stops the replay before anything further
    /// is written.
    private mutating func writeEntries(_ planned: [PlannedWrite]) async {
        var queue = RequestPlanner.writes(planned, limits: target.limits)
        var i = 0
        let total = planned.count
        while i < queue.count {
            var end = i + 1
            var groupEnd = queue[i].address + queue[i].words.count
            // The words of one register (FC06 writes them one by one) always stay in one group.
            while end < queue.count, queue[end].address == groupEnd,
                groupEnd + queue[end].words.count - queue[i].address <= target.limits.maxReadRegisters
                    || queue[end].registerIds.first == queue[end - 1].registerIds.last
            {
                groupEnd += queue[end].words.count
                end += 1
            }
            let group = Array(queue[i..<end])
            let outcome = await writeGroup(group)
            report.requests += outcome.requests
            report.writeFrames += outcome.written + (outcome.failure == nil ? 0 : 1)
            let mismatch = verify(Array(group.prefix(outcome.written)), outcome)
            progress?(JobProgress(phase: "writing", done: min(total, results.count), total: total))
            if mismatch && options.onError != .continue { return }
            if outcome.cancelled {
                report.stoppedAt = "shutdown before \(group[outcome.written].registerIds.first ?? "?")"
                report.reason = "stopped by shutdown at a clean point"
                return
            }
            guard let (k, error) = outcome.failure else {
                i = end
                continue
            }
            let request = group[k]
            if request.function == .fc16, error.exceptionCode == 0x01, target.limits.writeFunction == .auto,
                !report.fellBackToFC06
            {
                // The device does not implement FC16: go on with FC06 from this request on.
                report.fellBackToFC06 = true
                report.warnings.append("device refused FC16 (exception 01); fell back to FC06")
                var fc06 = target.limits
                fc06.writeFunction = .fc06
                let remaining = Set(queue[(i + k)...].flatMap(\.registerIds))
                let rest = planned.filter { remaining.contains($0.registerId) }
                queue = Array(queue[..<(i + k)]) + RequestPlanner.writes(rest, limits: fc06)
                i += k
                continue
            }
            for id in Set(request.registerIds) where results[id] == nil {
                results[id] = result(id, status: error.exceptionCode != nil ? .rejected : .failed, error: error)
            }
            if options.onError != .continue {
                report.stoppedAt =
                    "at \(request.registerIds.first ?? "?") (\(request.function.rawValue) \(request.address)+\(request.words.count))"
                report.reason = "write failed: \(error)"
                return
            }
            i += k + 1
        }
    }

    /// Writes a group's requests (until one fails or shutdown is asked) and reads back what was written,
    /// in one hop onto the connection's executor.
    private func writeGroup(_ group: [WriteRequest]) async -> GroupOutcome {
        let unit = target.unit
        let options = target.linkOptions
        // Read back in requests the device accepts: a group can be longer than maxReadRegisters (one FC16
        // of up to maxWriteRegisters), so split it, at register boundaries where possible.
        let readLimits = {
            var l = target.limits
            l.maxGap = 0
            return l
        }()
        let spans = group.flatMap(\.registerIds).compactMap { position[$0] }.map { span(entries[$0].entry) }
        return await target.connection.batch { connection in
            var out = GroupOutcome()
            out.start = group[0].address
            for (k, request) in group.enumerated() {
                if Task.isCancelled {
                    out.cancelled = true
                    break
                }
                out.requests += 1
                do throws(ModbusError) {
                    switch request.function {
                    case .fc16:
                        try connection.writeRegisters(
                            unit: unit, address: request.address, values: request.words, options: options)
                    case .fc06:
                        try connection.writeRegister(
                            unit: unit, address: request.address, value: request.words[0], options: options)
                    }
                    out.written = k + 1
                } catch {
                    out.failure = (k, error)
                    break
                }
            }
            guard out.written > 0 else { return out }
            let end = group[out.written - 1].address + group[out.written - 1].words.count
            let clipped = spans.compactMap { s -> AddressSpan? in
                let lo = max(s.address, out.start)
                let hi = min(s.end, end)
                return lo < hi ? AddressSpan(address: lo, length: hi - lo) : nil
            }
            var words = [UInt16](repeating: 0, count: end - out.start)
            do throws(ModbusError) {
                for read in RequestPlanner.reads(clipped, limits: readLimits) {
                    out.requests += 1
                    let got = try connection.readHoldingRegisters(
                        unit: unit, address: read.address, count: read.count, options: options)
                    for (k, w) in got.enumerated() { words[read.address - out.start + k] = w }
                }
                out.readback = .success(words)
            } catch {
                out.readback = .failure(error)
            }
            return out
        }
    }

    /// Records verified / mismatch for the written requests of a group; true when something did not verify.
    private mutating func verify(_ written: [WriteRequest], _ outcome: GroupOutcome) -> Bool {
        let ids = written.flatMap(\.registerIds)
        guard let readback = outcome.readback else { return false }
        let words: [UInt16]
        switch readback {
        case .success(let w): words = w
        case .failure(let error):
            for id in ids where results[id] == nil {
                results[id] = result(id, status: .failed, error: nil, message: "written, but read-back failed: \(error)")
            }
            if options.onError != .continue {
                report.stoppedAt = "after writing \(ids.first ?? "?"): read-back failed"
                report.reason = "read-back failed: \(error)"
            }
            return true
        }
        var mismatch = false
        for id in ids where results[id] == nil {
            guard let index = position[id] else { continue }
            let address = entries[index].entry.address
            let length = entries[index].entry.length
            let offset = address - outcome.start
            // Verified once all its words are written (FC06 writes a multi-word register word by word).
            guard offset >= 0, offset + length <= words.count else { continue }
            let actual = Array(words[offset..<(offset + length)])
            let ok = actual == entries[index].words
            mismatch = mismatch || !ok
            results[id] = result(id, status: ok ? .verified : .mismatch, actual: actual)
        }
        if mismatch && options.onError != .continue {
            let firstBad = entries.first { results[$0.entry.registerId]?.status == .mismatch }!.entry
            report.stoppedAt = "after a mismatch at \(firstBad.registerId)"
            report.reason = "read-back differs from the template"
        }
        return mismatch
    }

    private func result(
        _ id: String, status: RegisterStatus, error: ModbusError? = nil, actual: [UInt16]? = nil, message: String? = nil
    ) -> RegisterResult {
        let index = position[id]!
        let entry = entries[index].entry
        let def = entries[index].definition
        let beforeWords = snapshot?.words(for: span(entry))
        return RegisterResult(
            registerId: id, address: entry.address, length: entry.length, status: status, expected: entry.value,
            expectedData: entry.valueData, actual: actual.map { RegisterCodec.decode($0, as: def) },
            actualData: actual?.bigEndianBytes.hexString, before: beforeWords.map { RegisterCodec.decode($0, as: def) },
            beforeUnset: beforeWords.map { page.register(id)?.unset.matches($0) ?? RegisterCodec.isUnset($0, for: def) },
            exceptionCode: error?.exceptionCode.map(Int.init),
            message: message ?? error?.description)
    }

    /// Fills in registers without a result: dry-run diff or not attempted.
    private mutating func finishRegisters() {
        report.registers = entries.map { entry, def, words in
            if let r = results[entry.registerId] { return r }
            if options.dryRun, let current = snapshot?.words(for: span(entry)) {
                return result(entry.registerId, status: current == words ? .unchanged : .differs, actual: current)
            }
            return result(entry.registerId, status: .notAttempted)
        }
    }

    // MARK: rollback

    /// Restores every register the replay touched to its snapshot value, then verifies.
    private mutating func rollBack() async {
        guard let snapshot else { return }
        progress?(JobProgress(phase: "rolling back", done: 0, total: entries.count))
        let touched = entries.filter { results[$0.entry.registerId].map { $0.status != .notAttempted } ?? false }
        var limits = target.limits
        if report.fellBackToFC06 { limits.writeFunction = .fc06 }
        let restores = touched.compactMap { e -> PlannedWrite? in
            snapshot.words(for: span(e.entry)).map {
                PlannedWrite(registerId: e.entry.registerId, address: e.entry.address, words: $0)
            }
        }
        var failed: [String: ModbusError] = [:]
        for request in RequestPlanner.writes(restores, limits: limits) {
            report.requests += 1
            report.writeFrames += 1
            do {
                try await target.write(request)
            } catch {
                for id in request.registerIds { failed[id] = error }
            }
        }
        let readback = await PageReader.read(touched.map { span($0.entry) }, from: target)
        report.requests += readback.requests
        var lines: [RegisterResult] = []
        for (entry, def, _) in touched {
            let want = snapshot.words(for: span(entry))!
            let got = readback.words(for: span(entry))
            var line = RegisterResult(
                registerId: entry.registerId, address: entry.address, length: entry.length, status: .verified,
                expected: RegisterCodec.decode(want, as: def), expectedData: want.bigEndianBytes.hexString,
                actual: got.map { RegisterCodec.decode($0, as: def) }, actualData: got?.bigEndianBytes.hexString,
                before: RegisterCodec.decode(want, as: def), exceptionCode: nil, message: nil)
            if let error = failed[entry.registerId] {
                line.status = error.exceptionCode != nil ? .rejected : .failed
                line.exceptionCode = error.exceptionCode.map(Int.init)
                line.message = "restore failed: \(error)"
            } else if got != want {
                line.status = got == nil ? .failed : .mismatch
                line.message = got == nil ? "restore read-back failed" : "restored value did not verify"
            }
            lines.append(line)
        }
        report.rollback = RollbackResult(restored: lines.allSatisfy { $0.status == .verified }, registers: lines)
    }
}
