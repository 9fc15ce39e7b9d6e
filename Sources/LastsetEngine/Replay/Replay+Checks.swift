import LastsetCore

/// The checks before any write: the template against the current page, the identity registers, the snapshot.
extension Replay {
    /// Every entry must still fit the page: the one admission decision (`TemplateAdmission`: on the page, same
    /// address, length and layout as at capture, writable, cloned, set, valid, `value` the decoding of its
    /// `valueData`). Any refused entry refuses the replay before the first frame; an entry whose register is no
    /// longer on the page is left out, named in a warning.
    mutating func checkTemplate() -> Bool {
        let admission = TemplateAdmission.admit(template, to: page, localHost: localHost)
        if template.pageHash != page.hash && admission.isAdmissible {
            report.warnings.append(
                "page definition changed since capture (template \(template.pageHash), page now \(page.hash)); entries re-checked"
            )
        }
        let leftOut = admission.leftOut
        if !leftOut.isEmpty {
            report.warnings.append(
                "left out, not written (no longer registers of page \"\(page.id)\"): "
                    + leftOut.map(\.registerId).joined(separator: ", "))
        }
        guard admission.isAdmissible else {
            report.status = .refused
            report.reason = "template not valid for the page, nothing written: " + admission.refusalText
            entries = []
            entryPositions = []
            ledger.register([])
            return false
        }
        entries.reserveCapacity(template.entries.count)
        // What the replay expects (and reports, audits): the words it sends, decoded with the current page.
        var decoded: [RegisterValue] = []
        decoded.reserveCapacity(template.entries.count)
        for (entry, verdict) in zip(template.entries, admission.verdicts) {
            guard case .admitted(let at, let value) = verdict else { continue }
            entries.append(Entry(entry: entry, register: at, words: entry.words))
            entryPositions.append(at)
            decoded.append(value)
        }
        if !zip(entryPositions, entryPositions.dropFirst()).allSatisfy({ $0 < $1 }) {
            let order = entries.indices.sorted { entries[$0].register < entries[$1].register }
            entries = order.map { entries[$0] }
            decoded = order.map { decoded[$0] }
            entryPositions = entries.map(\.register)
        }
        var origins: [EntryOrigin?] = []
        if !page.layer.isEmpty { origins = layerEntries(&decoded) }
        registerEntries(decoded, origins: origins)
        if !origins.isEmpty {
            let (layouts, positions) = (page.layouts, entryPositions)
            ledger.holdToBands { layouts[positions[$0]] }
        }
        return true
    }

    /// The page's layer over the admitted entries (docs/OVERRIDES.md): each register's `EffectiveValue` — an
    /// override replaces the template's words, or adds the register (`clone: false`) — with its origin and band.
    /// `decoded` follows the entries; returns the origins, entry by entry.
    private mutating func layerEntries(_ decoded: inout [RegisterValue]) -> [EntryOrigin?] {
        var byPosition: [Int: (Entry, RegisterValue)] = [:]
        for (entry, value) in zip(entries, decoded) { byPosition[entry.register] = (entry, value) }
        let effective = EffectiveTemplate.entries(admitted: entries.map { ($0.register, $0.words) }, page: page)
        var layered: [Entry] = []
        var values: [RegisterValue] = []
        var origins: [EntryOrigin?] = []
        for e in effective {
            if e.value.source == .template, let (entry, value) = byPosition[e.position] {
                layered.append(entry)
                values.append(value)
            } else {
                let entry = TemplateEntry(register: page.registers[e.position], words: e.value.words, lastDate: template.capturedAt)
                layered.append(Entry(entry: entry, register: e.position, words: e.value.words))
                values.append(entry.value)
            }
            origins.append(EntryOrigin(e.value, tolerance: page.tolerance(at: e.position)))
        }
        entries = layered
        entryPositions = layered.map(\.register)
        decoded = values
        return origins
    }

    /// Registers the entries in the ledger: its columns straight from the entries (ids unique: repeats were
    /// refused), `decoded` the values they are expected to read back as.
    private mutating func registerEntries(_ decoded: [RegisterValue], origins: [EntryOrigin?]) {
        var ids: [String] = []
        var addresses: [Int] = []
        var lengths: [Int] = []
        var expected: [RegisterValue] = []
        var texts: [String] = []
        var words: [UInt16] = []
        var starts: [Int] = []
        ids.reserveCapacity(entries.count)
        addresses.reserveCapacity(entries.count)
        lengths.reserveCapacity(entries.count)
        expected.reserveCapacity(entries.count)
        texts.reserveCapacity(entries.count)
        starts.reserveCapacity(entries.count)
        entries.withUnsafeBufferPointer { es in
            for e in es.indices {
                ids.append(es[e].entry.registerId)
                addresses.append(es[e].entry.address)
                lengths.append(es[e].entry.length)
                expected.append(decoded[e])
                // The words' hex: the entry's own when already so (a capture writes it upper case).
                let data = es[e].entry.valueData
                texts.append(ValueHex.isUpperCase(data) ? data : es[e].words.hexString)
                starts.append(words.count)
                words.append(contentsOf: es[e].words)
            }
        }
        ledger.register(
            uniqueIds: ids, addresses: addresses, lengths: lengths, expected: expected, expectedData: texts,
            expectedWords: words, wordStarts: starts, origins: origins)
    }

    /// The target's identity registers must hold what the template's source held.
    mutating func checkIdentity() async -> Bool {
        let identity = page.identity
        guard !identity.isEmpty || !page.identityObjects.isEmpty else { return true }
        progress?(JobProgress(phase: .checkingIdentity, done: 0, total: identity.count + page.identityObjects.count))
        let readout = await PageReader.read(
            identity.map { AddressSpan(address: $0.address, length: $0.type.registerCount) }, from: target)
        readFrames += readout.requests
        var ok = true
        for reg in identity {
            let span = AddressSpan(address: reg.address, length: reg.type.registerCount)
            let recorded = template.source.identity.first { $0.registerId == reg.registerId }
            var check = IdentityCheck(
                registerId: reg.registerId, expected: recorded?.value, actual: nil, matches: false, message: nil)
            if let words = readout.words(for: span) {
                check.actual = RegisterCodec.decode(words, as: reg.definition)
                if let recorded {
                    check.matches = recorded.isHeld(by: words)
                    if !check.matches { check.message = "expected \(recorded.value), target has \(check.actual!)" }
                } else {
                    check.message = "the template recorded no value for it"
                }
            } else {
                check.message = "cannot read: \(readout.failure(for: span).map(String.init(describing:)) ?? "no data")"
            }
            ok = ok && check.matches
            report.identity.append(check)
        }
        if !page.identityObjects.isEmpty {
            ok = await checkIdentityObjects() && ok
        }
        if !ok {
            report.status = .refused
            let bad = report.identity.filter { !$0.matches }.map { "\($0.registerId): \($0.message ?? "")" }
            report.reason = "identity mismatch, nothing written: " + bad.joined(separator: "; ")
        }
        return ok
    }

    /// The target's identification objects (FC43/14) must hold what the template's source held, or match the
    /// page's pattern (`IdentityObject.check`). Returns whether all of them do.
    private mutating func checkIdentityObjects() async -> Bool {
        let objects = page.identityObjects
        let (read, requests) = await IdentificationReader.read(objects, from: target)
        readFrames += requests
        var ok = true
        for object in objects {
            let recorded = template.source.identity.first { $0.registerId == object.recordedId }
            var check: IdentityCheck
            switch read {
            case .success(let identification):
                check = object.check(recorded: recorded, actual: identification.object(object.object))
            case .failure(let error):
                check = IdentityCheck(registerId: object.recordedId, expected: recorded?.value, matches: false)
                check.message = "cannot read: \(error)"
            }
            ok = ok && check.matches
            report.identity.append(check)
        }
        return ok
    }

    /// Reads the target's current values of every entry (dry-run diff, rollback snapshot, "before" values).
    /// Only a rollback needs every value: without one an unreadable register just has no "before".
    mutating func takeSnapshot() async -> Bool {
        progress?(JobProgress(phase: .readingCurrentValues, done: 0, total: entries.count))
        let readout = await PageReader.read(entries.map(\.span), from: target)
        readFrames += readout.requests
        // The target's words and value, straight from the readout into the ledger (register i is entry i).
        let layouts = page.layouts
        for i in 0..<ledger.count {
            let span = ledger.span(at: i)
            let layout = layouts[entryPositions[i]]
            let done: Void? = readout.withWords(for: span) { words in
                ledger.recordBefore(at: i, value: RegisterCodec.decode(words, layout: layout), words: words)
            }
            if done == nil { ledger.recordBefore(at: i, value: nil, words: nil) }
        }
        if policy.needsEveryValueBefore(dryRun: options.dryRun), entries.contains(where: { !readout.has($0.span) }) {
            report.status = .refused
            report.reason =
                "cannot snapshot the target for rollback, nothing written: "
                + entries.filter { !readout.has($0.span) }.map {
                    "\($0.entry.registerId): \(readout.failure(for: $0.span).map(String.init(describing:)) ?? "no data")"
                }
                .joined(separator: "; ")
            return false
        }
        return true
    }
}
