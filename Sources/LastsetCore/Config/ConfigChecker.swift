import LastsetFormats
/// Walks a parsed config tree, collecting every problem and building the typed config.
///
/// Each object is checked for unknown keys first (so typos are caught), then its fields in a fixed
/// order; cross-checks (duplicates, overlaps, page references) run last. Problems come out in that
/// order, which makes them stable for tests and readable for people.
struct ConfigChecker {
    let file: String
    /// Reads the files the config names (the overrides' CSV), relative to `file`; nil: none is read.
    let read: ConfigIncludes.Reader?
    var problems: [ConfigProblem] = []

    init(file: String, read: ConfigIncludes.Reader? = nil) {
        self.file = file
        self.read = read
    }

    // MARK: the config

    mutating func config(_ root: JSONValue) -> LastsetConfig? {
        guard let fields = object(root, "$", keys: [
            "version", "api", "history", "asFoundHistory", "audit", "devices", "pages", "fleet", "overrides", "changeControl",
        ]) else { return nil }
        if let version = integer(fields, "version", in: "", required: true), version != 1 {
            add("version", .int(Int64(version)), "unsupported config version (only 1 is known)")
        }
        let history = integer(fields, "history", in: "")
        if let h = history, h < 1 { add("history", .int(Int64(h)), "must be at least 1") }
        let asFoundHistory = integer(fields, "asFoundHistory", in: "")
        if let h = asFoundHistory, h < 1 { add("asFoundHistory", .int(Int64(h)), "must be at least 1") }
        var api: APIConfig?
        if let a = field(fields, "api", in: "", required: false) { api = self.api(a, "api") }
        var audit: AuditConfig?
        if let a = field(fields, "audit", in: "", required: false) { audit = self.audit(a, "audit") }

        var pages: [PageDefinition] = []
        if let list = array(fields, "pages", in: "", required: true) {
            for (i, value) in list.enumerated() {
                if let page = page(value, "pages[\(i)]") {
                    pages.append(page)
                }
            }
        }
        // Every page id written, even on a page with other problems, for the devices' page references.
        var declaredPageIds = Set(pages.map(\.id))
        if case .array(let list)? = fields["pages"] {
            for case .object(let page) in list {
                if case .string(let id)? = page["id"] { declaredPageIds.insert(id) }
            }
        }
        // Pages whose identity tells the model (a replacement policy needs one).
        let identified = Set(pages.filter { !($0.identity ?? []).isEmpty || !($0.identityObjects ?? []).isEmpty }.map(\.id))
        var devices: [DeviceConfig] = []
        if let list = array(fields, "devices", in: "", required: true) {
            for (i, value) in list.enumerated() {
                if let device = device(value, "devices[\(i)]", pageIds: declaredPageIds, identified: identified) {
                    devices.append(device)
                }
            }
        }

        // Cross-checks over every id written, even in an entry with other problems: every problem in one run.
        let pageIds = writtenStrings(fields["pages"], "pages", key: "id")
        duplicates(pageIds.map(\.value), paths: pageIds.map(\.path), what: "page id")
        let deviceIds = writtenStrings(fields["devices"], "devices", key: "id")
        duplicates(deviceIds.map(\.value), paths: deviceIds.map(\.path), what: "device id")
        serialLines(writtenStrings(fields["devices"], "devices", key: "endpoint"))
        var registerIds: [(path: String, value: String)] = []
        if case .array(let list)? = fields["pages"] {
            for (i, page) in list.enumerated() {
                guard case .object(let f) = page else { continue }
                registerIds += writtenStrings(f["registers"], "pages[\(i)].registers", key: "registerId")
            }
        }
        duplicates(registerIds.map(\.value), paths: registerIds.map(\.path), what: "registerId")
        var fleet: FleetConfig?
        if let f = field(fields, "fleet", in: "", required: false) { fleet = self.fleet(f, "fleet") }
        var overrides: OverridesConfig?
        if let o = field(fields, "overrides", in: "", required: false) {
            overrides = self.overrides(o, "overrides", pages: pages, devices: devices)
        }
        var changeControl: ChangeControlConfig?
        if let c = field(fields, "changeControl", in: "", required: false) {
            changeControl = self.changeControl(c, "changeControl", pages: pages)
        }
        return LastsetConfig(
            version: 1, api: api, history: history, audit: audit, devices: devices, pages: pages, fleet: fleet,
            overrides: overrides, changeControl: changeControl, asFoundHistory: asFoundHistory)
    }

    /// The optional `audit` section (retention of the audit log).
    mutating func audit(_ value: JSONValue, _ path: String) -> AuditConfig? {
        guard let f = object(value, path, keys: AuditConfig.keys) else { return nil }
        let keepRecords = integer(f, "keepRecords", in: path)
        if let n = keepRecords, !AuditConfig.keepRecordsRange.contains(n) {
            add(
                join(path, "keepRecords"), .int(Int64(n)),
                "must be in \(AuditConfig.keepRecordsRange.lowerBound)...\(AuditConfig.keepRecordsRange.upperBound)")
        }
        let keepDays = integer(f, "keepDays", in: path)
        if let n = keepDays, !AuditConfig.keepDaysRange.contains(n) {
            add(
                join(path, "keepDays"), .int(Int64(n)),
                "must be in \(AuditConfig.keepDaysRange.lowerBound)...\(AuditConfig.keepDaysRange.upperBound)")
        }
        let interval = duration(f, "interval", in: path)
        if let t = interval, let d = DurationText.parse(t), !AuditConfig.intervalRange.contains(d) {
            add(join(path, "interval"), .string(t), "must be from 1m to 168h")
        }
        return AuditConfig(keepRecords: keepRecords, keepDays: keepDays, interval: interval)
    }

    /// The optional `fleet` section (docs/FLEET.md).
    mutating func fleet(_ value: JSONValue, _ path: String) -> FleetConfig? {
        guard let f = object(value, path, keys: FleetConfig.keys) else { return nil }
        let remote = string(f, "remote", in: path, required: true)
        if let r = remote, r.isEmpty || r.hasPrefix("-") || r.contains(where: { $0.isNewline || $0 == "\0" }) {
            add(join(path, "remote"), .string(r), "must be a git URL or path (ssh://…, git@host:repo, /srv/lastset.git)")
        }
        let interval = duration(f, "interval", in: path)
        let branch = string(f, "branch", in: path)
        if let b = branch { safeId(b, join(path, "branch"), what: "branch") }
        let host = string(f, "host", in: path)
        if let h = host { safeId(h, join(path, "host"), what: "host") }
        var files: [String: String] = [:]
        for key in ["sshKey", "allowedSigners", "signingKey", "knownHosts"] {
            guard let file = string(f, key, in: path) else { continue }
            if !file.hasPrefix("/") { add(join(path, key), .string(file), "must be an absolute path") }
            files[key] = file
        }
        let requireSigned = boolean(f, "requireSigned", in: path)
        if requireSigned == true && files["allowedSigners"] == nil {
            add(join(path, "requireSigned"), .bool(true), "needs \"allowedSigners\": the keys whose signatures are accepted")
        }
        if requireSigned == true && files["signingKey"] == nil {
            add(
                join(path, "requireSigned"), .bool(true),
                "needs \"signingKey\": the other hosts accept only signed commits, so this host must sign its own")
        }
        guard let remote else { return nil }
        return FleetConfig(
            remote: remote, interval: interval, branch: branch, host: host, sshKey: files["sshKey"], requireSigned: requireSigned,
            allowedSigners: files["allowedSigners"], signingKey: files["signingKey"], knownHosts: files["knownHosts"])
    }

    mutating func api(_ value: JSONValue, _ path: String) -> APIConfig? {
        guard
            let fields = object(
                value, path, keys: ["socket", "tcp", "roles", "socketConnectionsPerUser", "requestTimeout"])
        else { return nil }
        let socket = string(fields, "socket", in: path)
        if let s = socket, !s.hasPrefix("/") { add(join(path, "socket"), .string(s), "must be an absolute path") }
        var tcp: TCPAPIConfig?
        if let t = field(fields, "tcp", in: path, required: false) { tcp = tcpAPI(t, join(path, "tcp")) }
        var roles: APIRolesConfig?
        if let r = field(fields, "roles", in: path, required: false) { roles = self.roles(r, join(path, "roles")) }
        let perUser = integer(fields, "socketConnectionsPerUser", in: path)
        if let n = perUser, !(1...SocketConnectionLimits.maxPerUser).contains(n) {
            add(
                join(path, "socketConnectionsPerUser"), .int(Int64(n)),
                "must be in 1...\(SocketConnectionLimits.maxPerUser) (the socket has \(SocketConnectionLimits.listenerLimit) connections, \(SocketConnectionLimits.defaultReserved) kept for root)"
            )
        }
        let requestTimeout = duration(fields, "requestTimeout", in: path)
        if let t = requestTimeout, let d = DurationText.parse(t), !APIConfig.requestTimeoutRange.contains(d) {
            add(join(path, "requestTimeout"), .string(t), "must be from 1s to 10m")
        }
        return APIConfig(
            socket: socket, tcp: tcp, roles: roles, socketConnectionsPerUser: perUser, requestTimeout: requestTimeout)
    }

    mutating func tcpAPI(_ value: JSONValue, _ tcpPath: String) -> TCPAPIConfig? {
        guard let tf = object(value, tcpPath, keys: ["listen", "tokenFile", "tokens", "tls", "hosts"]) else { return nil }
        let listen = string(tf, "listen", in: tcpPath, required: true)
        var host: String?
        if let l = listen {
            do throws(EndpointError) {
                if case .tcp(let h, _) = try Endpoint.parse("tcp://" + l) { host = h }
            } catch {
                add(join(tcpPath, "listen"), .string(l), "must be host:port (\(error.reason))")
            }
        }
        let tokenFile = string(tf, "tokenFile", in: tcpPath)
        var tokens: [APITokenConfig]?
        if let list = array(tf, "tokens", in: tcpPath) {
            tokens = list.enumerated().compactMap { apiToken($1, "\(tcpPath).tokens[\($0)]") }
            let names = (tokens ?? []).map(\.name) + (tokenFile == nil ? [] : ["api"])
            let paths =
                (tokens ?? []).indices.map { "\(tcpPath).tokens[\($0)].name" }
                + (tokenFile == nil ? [] : [join(tcpPath, "tokenFile")])
            duplicates(names, paths: paths, what: "token name (\"api\" is the tokenFile's)")
        }
        if tokenFile == nil && (tokens ?? []).isEmpty {
            add(tcpPath, nil, "needs \"tokenFile\" or \"tokens\": the TCP API is never open without a token")
        }
        var tls: TLSConfig?
        if let t = field(tf, "tls", in: tcpPath, required: false),
            let tlsFields = object(t, join(tcpPath, "tls"), keys: ["cert", "key"])
        {
            let cert = string(tlsFields, "cert", in: join(tcpPath, "tls"), required: true)
            let key = string(tlsFields, "key", in: join(tcpPath, "tls"), required: true)
            if let cert, let key { tls = TLSConfig(cert: cert, key: key) }
        }
        if let l = listen, let host, tf["tls"] == nil, !TCPAPIConfig.isLoopback(host: host) {
            add(
                join(tcpPath, "listen"), .string(l),
                "is not a loopback address: a listener reached over the network needs \"tls\": { cert, key } (tokens and session cookies must not cross it in clear)"
            )
        }
        var hosts: [String]?
        if let list = array(tf, "hosts", in: tcpPath) {
            hosts = []
            for (i, item) in list.enumerated() {
                guard case .string(let h) = item, (try? Endpoint.parse("tcp://" + h)) != nil else {
                    add("\(tcpPath).hosts[\(i)]", item, "must be a \"host:port\" string")
                    continue
                }
                hosts?.append(h)
            }
        }
        guard let listen else { return nil }
        return TCPAPIConfig(listen: listen, tokenFile: tokenFile, tokens: tokens, tls: tls, hosts: hosts)
    }

    mutating func apiToken(_ value: JSONValue, _ path: String) -> APITokenConfig? {
        guard let fields = object(value, path, keys: ["name", "role", "sha256"]) else { return nil }
        let name = string(fields, "name", in: path, required: true)
        if let name { safeId(name, join(path, "name"), what: "token name") }
        let role: APIRole? = choice(fields, "role", in: path)
        if fields["role"] == nil { add(join(path, "role"), nil, "required key \"role\" is missing") }
        let hash = string(fields, "sha256", in: path, required: true)
        if let hash,
            hash.utf8.count != 64
                || !hash.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) })
        {
            add(
                join(path, "sha256"), .string(hash),
                "must be the 64 hex digits of the token's SHA-256 (printf %s \"$TOKEN\" | sha256sum)")
            return nil
        }
        guard let name, let role, let hash else { return nil }
        return APITokenConfig(name: name, role: role, sha256: hash.lowercased())
    }

    mutating func roles(_ value: JSONValue, _ path: String) -> APIRolesConfig? {
        guard
            let fields = object(value, path, keys: ["operatorGroups", "viewerGroups", "approverGroups", "administratorGroups"])
        else {
            return nil
        }
        func groups(_ key: String) -> [String]? {
            guard let list = array(fields, key, in: path) else { return nil }
            var out: [String] = []
            for (i, item) in list.enumerated() {
                guard case .string(let g) = item, !g.isEmpty else {
                    add("\(path).\(key)[\(i)]", item, "must be a group name")
                    continue
                }
                out.append(g)
            }
            return out
        }
        return APIRolesConfig(
            operatorGroups: groups("operatorGroups"), viewerGroups: groups("viewerGroups"),
            administratorGroups: groups("administratorGroups"), approverGroups: groups("approverGroups"))
    }

    // MARK: pages

    mutating func page(_ value: JSONValue, _ path: String) -> PageDefinition? {
        let before = problems.count
        guard
            let fields = object(
                value, path,
                keys: [
                    "id", "title", "description", "identity", "beforeWrite", "afterWrite", "registers", "unsetStyle",
                    "resetMarker",
                ])
        else { return nil }
        let id = string(fields, "id", in: path, required: true)
        if let id { safeId(id, join(path, "id"), what: "page id") }
        let title = string(fields, "title", in: path)
        let description = string(fields, "description", in: path)

        let (identity, identityObjects) = pageIdentity(fields, path)
        let beforeWrite = steps(fields, "beforeWrite", in: path)
        let afterWrite = steps(fields, "afterWrite", in: path)
        let unsetStyle: UnsetStyle? = choice(fields, "unsetStyle", in: path)

        let registers = pageRegisters(fields, path)
        let marker = resetMarker(fields, path, pageId: id, registers: registers)
        guard problems.count == before, let id else { return nil }
        return PageDefinition(
            id: id, title: title, identity: identity, beforeWrite: beforeWrite, afterWrite: afterWrite,
            registers: registers, unsetStyle: unsetStyle, description: description, identityObjects: identityObjects,
            resetMarker: marker)
    }

    /// A page's identity: registers, and FC43 objects (`{ "object": … }`), each list free of duplicates.
    mutating func pageIdentity(_ fields: [String: JSONValue], _ path: String) -> ([IdentityRegister]?, [IdentityObject]?) {
        guard let list = array(fields, "identity", in: path) else { return (nil, nil) }
        var registers: [(IdentityRegister, Int)] = []
        var objects: [(IdentityObject, Int)] = []
        for (i, item) in list.enumerated() {
            if case .object(let f) = item, f["object"] != nil {
                if let o = identityObject(item, "\(path).identity[\(i)]") { objects.append((o, i)) }
            } else if let r = identityRegister(item, "\(path).identity[\(i)]") {
                registers.append((r, i))
            }
        }
        duplicates(
            registers.map(\.0.registerId), paths: registers.map { "\(path).identity[\($0.1)].registerId" },
            what: "identity registerId")
        duplicates(
            objects.map(\.0.object.name), paths: objects.map { "\(path).identity[\($0.1)].object" },
            what: "identity object")
        // Only what the config lists: a page with objects alone has no `identity` registers (its hash unchanged).
        return (registers.isEmpty && !objects.isEmpty ? nil : registers.map(\.0), objects.isEmpty ? nil : objects.map(\.0))
    }

    /// A page's registers, and a problem for each one overlapping another.
    mutating func pageRegisters(_ fields: [String: JSONValue], _ path: String) -> [RegisterDefinition] {
        var registers: [RegisterDefinition] = []
        // Spans for the overlap check: every register whose address and type are sound, even one with
        // other problems (every problem in one run).
        var spans: [RegisterDefinition] = []
        var indices: [Int] = []
        if let list = array(fields, "registers", in: path, required: true) {
            for (j, item) in list.enumerated() {
                if let r = register(item, "\(path).registers[\(j)]") {
                    registers.append(r)
                    spans.append(r)
                    indices.append(j)
                } else if case .object(let f) = item, let address = f["address"]?.number.flatMap({ Int(exactly: $0) }),
                    case .string(let t)? = f["type"], let type = RegisterType(parsing: t),
                    RegisterRules.addressProblems(address: address, type: type).isEmpty
                {
                    let id: String
                    if case .string(let s)? = f["registerId"] { id = s } else { id = "registers[\(j)]" }
                    spans.append(RegisterDefinition(registerId: id, address: address, type: type))
                    indices.append(j)
                }
            }
        }
        overlaps(spans, indices, path)
        return registers
    }

    /// A problem for each register overlapping one before it: each is compared with the one reaching
    /// furthest among those before it by address; the one later in page order carries the problem.
    mutating func overlaps(_ spans: [RegisterDefinition], _ indices: [Int], _ path: String) {
        let byAddress = zip(spans, indices).sorted {
            $0.0.address != $1.0.address ? $0.0.address < $1.0.address : $0.1 < $1.1
        }
        var furthest: (RegisterDefinition, Int)?
        for (r, j) in byAddress {
            if let (f, fj) = furthest, r.address < f.endAddress {
                let (first, second, secondIndex) = fj < j ? (f, r, j) : (r, f, fj)
                add(
                    "\(path).registers[\(secondIndex)].address", .int(Int64(second.address)),
                    "register \"\(second.registerId)\" (\(second.address)...\(second.endAddress - 1)) overlaps \"\(first.registerId)\" (\(first.address)...\(first.endAddress - 1))"
                )
            }
            if furthest == nil || r.endAddress > furthest!.0.endAddress { furthest = (r, j) }
        }
    }

    mutating func register(_ value: JSONValue, _ path: String) -> RegisterDefinition? {
        let before = problems.count
        guard
            let fields = object(
                value, path,
                keys: [
                    "registerId", "name", "address", "type", "wordOrder", "byteOrder", "unset", "min", "max", "enum",
                    "scale", "unit", "access", "clone", "factoryDefault", "description",
                ])
        else { return nil }
        let registerId = string(fields, "registerId", in: path, required: true)
        if let id = registerId, id.isEmpty { add(join(path, "registerId"), .string(id), "must not be empty") }
        let name = string(fields, "name", in: path)
        let address = integer(fields, "address", in: path, required: true)
        let type = registerType(fields, "type", in: path, required: true)
        let wordOrder: WordOrder? = choice(fields, "wordOrder", in: path)
        let byteOrder: ByteOrder? = choice(fields, "byteOrder", in: path)
        var unset: RegisterValue?
        if let u = field(fields, "unset", in: path, required: false) {
            unset = registerValue(u)
            if unset == nil {
                add(join(path, "unset"), u, "must be a number, a string or {hex: \"…\"}")
            }
        }
        let min = exactNumber(fields, "min", in: path)
        let max = exactNumber(fields, "max", in: path)
        var enumValues: [ExactNumber]?
        if let list = array(fields, "enum", in: path) {
            enumValues = []
            for (k, item) in list.enumerated() {
                if let n = ExactNumber(item), n.isFinite {
                    enumValues?.append(n)
                } else {
                    add("\(path).enum[\(k)]", item, "must be a number")
                }
            }
        }
        let scale = number(fields, "scale", in: path)
        let unit = string(fields, "unit", in: path)
        let access: Access? = choice(fields, "access", in: path)
        let clone = boolean(fields, "clone", in: path)
        var factoryDefault: RegisterValue?
        if let d = field(fields, "factoryDefault", in: path, required: false) {
            factoryDefault = registerValue(d)
            if factoryDefault == nil {
                add(join(path, "factoryDefault"), d, "must be a number, a string or {hex: \"…\"}")
            }
        }
        let description = string(fields, "description", in: path)
        guard let registerId, let address, let type else { return nil }
        unset = unset.map { RegisterRules.normalized($0, for: type) }
        factoryDefault = factoryDefault.map { RegisterRules.normalized($0, for: type) }
        let definition = RegisterDefinition(
            registerId: registerId, name: name, address: address, type: type, wordOrder: wordOrder,
            byteOrder: byteOrder, unset: unset, min: min, max: max, enum: enumValues, scale: scale, unit: unit,
            access: access, clone: clone, factoryDefault: factoryDefault, description: description)
        for p in RegisterRules.problems(of: definition) {
            add(p.key.isEmpty ? path : join(path, p.key), p.value, p.message)
        }
        return problems.count == before ? definition : nil
    }

    mutating func identityRegister(_ value: JSONValue, _ path: String) -> IdentityRegister? {
        let before = problems.count
        guard let fields = object(value, path, keys: ["registerId", "address", "type", "wordOrder", "byteOrder"]) else {
            return nil
        }
        let registerId = string(fields, "registerId", in: path, required: true)
        if let id = registerId, id.isEmpty { add(join(path, "registerId"), .string(id), "must not be empty") }
        let address = integer(fields, "address", in: path, required: true)
        let type = registerType(fields, "type", in: path, required: true)
        let wordOrder: WordOrder? = choice(fields, "wordOrder", in: path)
        let byteOrder: ByteOrder? = choice(fields, "byteOrder", in: path)
        guard let registerId, let address, let type else { return nil }
        let identity = IdentityRegister(
            registerId: registerId, address: address, type: type, wordOrder: wordOrder, byteOrder: byteOrder)
        for p in RegisterRules.addressProblems(address: address, type: type) {
            add(join(path, p.key), p.value, p.message)
        }
        return problems.count == before ? identity : nil
    }

    mutating func identityObject(_ value: JSONValue, _ path: String) -> IdentityObject? {
        let before = problems.count
        guard let fields = object(value, path, keys: ["object", "match"]) else { return nil }
        let name = string(fields, "object", in: path, required: true)
        let match = string(fields, "match", in: path)
        var object: IdentificationObjectId?
        if let name {
            object = IdentificationObjectId(name: name)
            if object == nil {
                add(
                    join(path, "object"), .string(name),
                    "unknown identification object (expected one of "
                        + IdentificationObjectId.standardNames.joined(separator: ", ") + ", or a private object 0x80…0xFF)")
            }
        }
        if let match, let problem = IdentityObject.patternProblem(match) { add(join(path, "match"), .string(match), problem) }
        guard problems.count == before, let object else { return nil }
        return IdentityObject(object: object, match: match)
    }

    mutating func steps(_ fields: [String: JSONValue], _ key: String, in path: String) -> [WriteStep]? {
        guard let list = array(fields, key, in: path) else { return nil }
        var steps: [WriteStep] = []
        for (i, item) in list.enumerated() {
            let stepPath = "\(join(path, key))[\(i)]"
            guard let f = object(item, stepPath, keys: ["address", "value"]) else { continue }
            let address = integer(f, "address", in: stepPath, required: true)
            let value = integer(f, "value", in: stepPath, required: true)
            if let a = address, !(0...65535).contains(a) {
                add(join(stepPath, "address"), .int(Int64(a)), "must be in 0...65535")
            }
            if let v = value, !(0...65535).contains(v) {
                add(join(stepPath, "value"), .int(Int64(v)), "must be in 0...65535 (one register)")
            }
            if let address, let value { steps.append(WriteStep(address: address, value: value)) }
        }
        return steps
    }

    // MARK: devices

    mutating func device(_ value: JSONValue, _ path: String, pageIds: Set<String>, identified: Set<String>) -> DeviceConfig? {
        let before = problems.count
        guard
            let fields = object(
                value, path,
                keys: [
                    "id", "endpoint", "unit", "pages", "poll", "quirks", "unsetStyle", "gateway", "replacement", "serialNumber",
                    "backup",
                ])
        else {
            return nil
        }
        let id = string(fields, "id", in: path, required: true)
        if let id { safeId(id, join(path, "id"), what: "device id") }
        let endpoint = string(fields, "endpoint", in: path, required: true)
        if let e = endpoint {
            do throws(EndpointError) {
                _ = try Endpoint.parse(e)
            } catch {
                add(join(path, "endpoint"), .string(e), error.reason)
            }
        }
        let unit = integer(fields, "unit", in: path, required: true)
        if let u = unit, !(0...247).contains(u) { add(join(path, "unit"), .int(Int64(u)), "unit id must be in 0...247") }
        var pages: [String]?
        if let list = array(fields, "pages", in: path) {
            pages = []
            for (k, item) in list.enumerated() {
                guard case .string(let s) = item else {
                    add("\(path).pages[\(k)]", item, "must be a string (a page id)")
                    continue
                }
                if !pageIds.contains(s) { add("\(path).pages[\(k)]", item, "no page has this id") }
                pages?.append(s)
            }
        }
        let poll = duration(fields, "poll", in: path)
        var quirks: Quirks?
        if let q = field(fields, "quirks", in: path, required: false) { quirks = self.quirks(q, join(path, "quirks")) }
        let unsetStyle: UnsetStyle? = choice(fields, "unsetStyle", in: path)
        let gateway = boolean(fields, "gateway", in: path)
        let replacement: ReplacementPolicy? = choice(fields, "replacement", in: path)
        let serial = serialNumber(fields, in: path)
        let backup = duration(fields, "backup", in: path)
        if let backup, let d = DurationText.parse(backup), d > .zero {
            if d < .seconds(1) { add(join(path, "backup"), .string(backup), "must be at least 1s (or \"0\": no scheduled backup)") }
            if (pages ?? []).isEmpty { add(join(path, "backup"), .string(backup), "needs pages to back up (the device has none)") }
        }
        if let replacement, replacement != .off, poll.flatMap(DurationText.parse).map({ $0 <= .zero }) ?? true {
            add(
                join(path, "replacement"), .string(replacement.rawValue),
                "needs a poll interval (the machine is fingerprinted at each poll)")
        }
        if let replacement, replacement != .off, !(pages ?? []).contains(where: identified.contains) {
            add(
                join(path, "replacement"), .string(replacement.rawValue),
                "needs a page with an identity (the model: without it another model cannot be told from a replacement)")
        }
        guard problems.count == before, let id, let endpoint, let unit else { return nil }
        return DeviceConfig(
            id: id, endpoint: endpoint, unit: unit, pages: pages, poll: poll, quirks: quirks, unsetStyle: unsetStyle,
            gateway: gateway, replacement: replacement, serialNumber: serial.registers, serialNumberObjects: serial.objects,
            backup: backup)
    }

    /// A device's `serialNumber`: identity registers and FC43 objects (compared as they are: no `match`).
    mutating func serialNumber(_ fields: [String: JSONValue], in path: String) -> (
        registers: [IdentityRegister]?, objects: [IdentityObject]?
    ) {
        guard let list = array(fields, "serialNumber", in: path) else { return (nil, nil) }
        var (registers, objects): ([IdentityRegister], [IdentityObject]) = ([], [])
        for (i, item) in list.enumerated() {
            let itemPath = "\(path).serialNumber[\(i)]"
            if case .object(let f) = item, f["object"] != nil {
                if let m = f["match"] { add(join(itemPath, "match"), m, "a serial number is compared as it is: no match") }
                if let o = identityObject(item, itemPath) { objects.append(o) }
            } else if let r = identityRegister(item, itemPath) {
                registers.append(r)
            }
        }
        return (registers.isEmpty ? nil : registers, objects.isEmpty ? nil : objects)
    }

    mutating func quirks(_ value: JSONValue, _ path: String) -> Quirks? {
        guard
            let fields = object(
                value, path,
                keys: [
                    "maxReadRegisters", "maxWriteRegisters", "maxGap", "writeFunction", "requestDelay", "timeout", "retries",
                ])
        else { return nil }
        let q = Quirks(
            maxReadRegisters: bounded(fields, "maxReadRegisters", in: path, 1...125),
            maxWriteRegisters: bounded(fields, "maxWriteRegisters", in: path, 1...123),
            maxGap: bounded(fields, "maxGap", in: path, 0...125),
            writeFunction: choice(fields, "writeFunction", in: path),
            requestDelay: duration(fields, "requestDelay", in: path),
            timeout: duration(fields, "timeout", in: path),
            retries: bounded(fields, "retries", in: path, 0...10))
        if let t = q.timeout, DurationText.parse(t) == .zero {
            add(join(path, "timeout"), .string(t), "timeout must be greater than 0")
        }
        return q
    }

    // MARK: field helpers

    mutating func add(_ path: String, _ value: JSONValue?, _ message: String) {
        problems.append(ConfigProblem(file: file, path: path, value: value?.abbreviated() ?? "", message: message))
    }

    func join(_ path: String, _ key: String) -> String {
        path.isEmpty || path == "$" ? key : "\(path).\(key)"
    }

    /// The object's fields, after reporting unknown keys; nil (and a problem) when it is not an object.
    mutating func object(_ value: JSONValue, _ path: String, keys: [String]) -> [String: JSONValue]? {
        guard case .object(let fields) = value else {
            add(
                path, value,
                "must be an object, not \(value.typeName == "integer" ? "a number" : "\(article(value.typeName)) \(value.typeName)")"
            )
            return nil
        }
        let known = Set(keys)
        for key in fields.keys.sorted() where !known.contains(key) {
            let suggestion = keys.first { $0.lowercased() == key.lowercased() }
            add(
                join(path, key), fields[key],
                "unknown key" + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? "")
                    + "; known keys: " + keys.joined(separator: ", "))
        }
        return fields
    }

    private func article(_ word: String) -> String { "aeiou".contains(word.first ?? "x") ? "an" : "a" }

    mutating func field(_ fields: [String: JSONValue], _ key: String, in path: String, required: Bool) -> JSONValue? {
        guard let value = fields[key] else {
            if required { add(join(path, key), nil, "required key \"\(key)\" is missing") }
            return nil
        }
        // Never a default: `clone: null` must not quietly mean "cloned".
        guard value != .null else {
            add(join(path, key), value, "null is not a value here; leave the key out for its default")
            return nil
        }
        return value
    }

    private mutating func wrongType(_ path: String, _ value: JSONValue, _ expected: String) {
        add(path, value, "must be \(expected), not \(article(value.typeName)) \(value.typeName)")
    }

    mutating func string(_ fields: [String: JSONValue], _ key: String, in path: String, required: Bool = false) -> String?
    {
        guard let value = field(fields, key, in: path, required: required) else { return nil }
        guard case .string(let s) = value else {
            wrongType(join(path, key), value, "a string")
            return nil
        }
        return s
    }

    private mutating func integer(_ fields: [String: JSONValue], _ key: String, in path: String, required: Bool = false) -> Int? {
        guard let value = field(fields, key, in: path, required: required) else { return nil }
        switch value {
        case .int(let i): return Int(i)
        case .double(let d) where d.isFinite && d == d.rounded() && abs(d) < 1e15: return Int(d)
        case .uint, .double:
            add(join(path, key), value, "must be a whole number in range")
            return nil
        default:
            wrongType(join(path, key), value, "an integer")
            return nil
        }
    }

    private mutating func bounded(_ fields: [String: JSONValue], _ key: String, in path: String, _ range: ClosedRange<Int>)
        -> Int?
    {
        guard let v = integer(fields, key, in: path) else { return nil }
        guard range.contains(v) else {
            add(join(path, key), .int(Int64(v)), "must be in \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return v
    }

    mutating func number(_ fields: [String: JSONValue], _ key: String, in path: String) -> Double? {
        guard let value = field(fields, key, in: path, required: false) else { return nil }
        guard let n = value.number else {
            wrongType(join(path, key), value, "a number")
            return nil
        }
        guard n.isFinite else {
            add(join(path, key), value, "must be a finite number")
            return nil
        }
        return n
    }

    /// A bound (`min`, `max`): a finite number, kept exactly (a u64 bound is not rounded to a Double).
    private mutating func exactNumber(_ fields: [String: JSONValue], _ key: String, in path: String) -> ExactNumber? {
        guard number(fields, key, in: path) != nil, let value = fields[key] else { return nil }
        return ExactNumber(value)
    }

    mutating func boolean(_ fields: [String: JSONValue], _ key: String, in path: String) -> Bool? {
        guard let value = field(fields, key, in: path, required: false) else { return nil }
        guard case .bool(let b) = value else {
            wrongType(join(path, key), value, "true or false")
            return nil
        }
        return b
    }

    mutating func array(_ fields: [String: JSONValue], _ key: String, in path: String, required: Bool = false)
        -> [JSONValue]?
    {
        guard let value = field(fields, key, in: path, required: required) else { return nil }
        guard case .array(let items) = value else {
            wrongType(join(path, key), value, "an array")
            return nil
        }
        return items
    }

    private mutating func choice<T: RawRepresentable & CaseIterableByName>(
        _ fields: [String: JSONValue], _ key: String, in path: String
    ) -> T? where T.RawValue == String {
        guard let s = string(fields, key, in: path) else { return nil }
        guard let v = T(rawValue: s) else {
            add(join(path, key), .string(s), "must be one of: " + T.names.joined(separator: ", "))
            return nil
        }
        return v
    }

    private mutating func registerType(_ fields: [String: JSONValue], _ key: String, in path: String, required: Bool)
        -> RegisterType?
    {
        guard let s = string(fields, key, in: path, required: required) else { return nil }
        guard let t = RegisterType(parsing: s) else {
            add(
                join(path, key), .string(s),
                "unknown register type; expected u16, s16, u32, s32, u64, s64, f32, f64, string(n) or raw(n) with n in 1...\(RegisterType.maxByteLength)"
            )
            return nil
        }
        return t
    }

    private mutating func duration(_ fields: [String: JSONValue], _ key: String, in path: String) -> String? {
        guard let s = string(fields, key, in: path) else { return nil }
        guard DurationText.parse(s) != nil else {
            add(join(path, key), .string(s), "not a duration; write e.g. \"500ms\", \"10s\", \"2m\", \"1h\" or \"0\"")
            return nil
        }
        return s
    }

    /// `key`'s string value in each object of an array, with its path (entries without one left out).
    private func writtenStrings(_ value: JSONValue?, _ path: String, key: String) -> [(path: String, value: String)] {
        guard case .array(let list)? = value else { return [] }
        return list.enumerated().compactMap { i, item in
            guard case .object(let f) = item, case .string(let s)? = f[key] else { return nil }
            return ("\(path)[\(i)].\(key)", s)
        }
    }

    mutating func safeId(_ id: String, _ path: String, what: String) {
        if !SafeName.isValid(id) {
            add(
                path, .string(id), "\(what) must match [A-Za-z0-9][A-Za-z0-9._-]* and be at most \(SafeName.maxLength) characters"
            )
        }
    }

    /// Every device on one serial line (the same `rtu://` path) must give the same settings: a line has one
    /// framing (`LineAccess`; two spellings of one device are caught when a job resolves them).
    private mutating func serialLines(_ endpoints: [(path: String, value: String)]) {
        var first: [String: (path: String, settings: LineSettings)] = [:]
        for (path, text) in endpoints {
            // An endpoint that does not parse is reported with its device; it has no line to compare.
            guard case .rtu(let line)? = try? Endpoint.parse(text) else { continue }
            if let earlier = first[line.path] {
                if earlier.settings != line.settings {
                    add(
                        path, .string(text),
                        "serial line \(line.path) is configured with \(earlier.settings) at \(earlier.path): every device on one line uses the same settings"
                    )
                }
            } else {
                first[line.path] = (path, line.settings)
            }
        }
    }

    private mutating func duplicates(_ values: [String], paths: [String], what: String) {
        var first: [String: String] = [:]
        for (value, path) in zip(values, paths) {
            if let earlier = first[value] {
                add(path, .string(value), "duplicate \(what) (first used at \(earlier))")
            } else {
                first[value] = path
            }
        }
    }

    /// A config value as a register value: integers, floats, text, or `{hex: "…"}` bytes.
    func registerValue(_ value: JSONValue) -> RegisterValue? {
        switch value {
        case .int(let i): return i >= 0 ? .unsigned(UInt64(i)) : .signed(i)
        case .uint(let u): return .unsigned(u)
        case .double(let d): return .float(d)
        case .string(let s): return .text(s)
        case .object(let f):
            guard f.count == 1, case .string(let hex)? = f["hex"], let bytes = [UInt8](hexString: hex) else { return nil }
            return .bytes(bytes)
        default: return nil
        }
    }
}

/// Enumerations whose accepted spellings a message can list.
protocol CaseIterableByName {
    static var names: [String] { get }
}

extension WordOrder: CaseIterableByName { static var names: [String] { ["big", "little"] } }
extension ByteOrder: CaseIterableByName { static var names: [String] { ["big", "little"] } }
extension Access: CaseIterableByName { static var names: [String] { ["rw", "ro"] } }
extension UnsetStyle: CaseIterableByName { static var names: [String] { allCases.map(\.rawValue) } }
extension APIRole: CaseIterableByName { static var names: [String] { ["viewer", "operator", "approver", "administrator"] } }
extension ReplacementPolicy: CaseIterableByName { static var names: [String] { allCases.map(\.rawValue) } }
extension WriteFunction: CaseIterableByName { static var names: [String] { ["auto", "fc06", "fc16"] } }
