/// One parameter of a page, as declared in the register map.
public struct RegisterDefinition: Codable, Sendable, Hashable {
    /// Stable, unique key of the register within the config.
    public var registerId: String
    /// Human-readable name; defaults to the registerId.
    public var name: String?
    /// 0-based PDU address of the first register.
    public var address: Int
    /// Encoding of the value.
    public var type: RegisterType
    /// Word order of multi-register values (default big).
    public var wordOrder: WordOrder?
    /// Byte order inside each register (default big).
    public var byteOrder: ByteOrder?
    /// The "not set" value; defaults to the type's maximum (all 0xFF bytes for strings and raw).
    public var unset: RegisterValue?
    /// Smallest valid value (in raw units, before scale).
    public var min: ExactNumber?
    /// Largest valid value (in raw units, before scale).
    public var max: ExactNumber?
    /// The only valid values, when the register is an enumeration.
    public var `enum`: [ExactNumber]?
    /// Display scale (value × scale).
    public var scale: Double?
    /// Display unit.
    public var unit: String?
    /// rw (default) or ro.
    public var access: Access?
    /// false for identity and communication registers (unit id, baud rate, IP, serial number).
    public var clone: Bool?
    /// The value the vendor ships (a vendor list's `Default`), raw units; documentation only, never
    /// written, and not the "not set" value (`unset`).
    public var factoryDefault: RegisterValue?
    /// What the parameter does, for people.
    public var description: String?

    public init(
        registerId: String, name: String? = nil, address: Int, type: RegisterType,
        wordOrder: WordOrder? = nil, byteOrder: ByteOrder? = nil, unset: RegisterValue? = nil,
        min: ExactNumber? = nil, max: ExactNumber? = nil, enum: [ExactNumber]? = nil, scale: Double? = nil,
        unit: String? = nil, access: Access? = nil, clone: Bool? = nil, factoryDefault: RegisterValue? = nil,
        description: String? = nil
    ) {
        self.factoryDefault = factoryDefault
        self.description = description
        self.registerId = registerId
        self.name = name
        self.address = address
        self.type = type
        self.wordOrder = wordOrder
        self.byteOrder = byteOrder
        self.unset = unset
        self.min = min
        self.max = max
        self.enum = `enum`
        self.scale = scale
        self.unit = unit
        self.access = access
        self.clone = clone
    }

    /// Number of 16-bit registers (derived from the type).
    public var length: Int { type.registerCount }
    /// Address one past the last register.
    public var endAddress: Int { address + length }
    /// Effective access (rw unless declared ro).
    public var isWritable: Bool { (access ?? .rw) == .rw }
    /// Effective clone flag (true unless declared false).
    public var isCloned: Bool { clone ?? true }
    /// Display name, falling back to the id.
    public var displayName: String { name ?? registerId }
}

/// A register whose value must match between template and target before a replay (e.g. the model).
public struct IdentityRegister: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    public var type: RegisterType
    public var wordOrder: WordOrder?
    public var byteOrder: ByteOrder?

    public init(registerId: String, address: Int, type: RegisterType, wordOrder: WordOrder? = nil, byteOrder: ByteOrder? = nil) {
        self.registerId = registerId
        self.address = address
        self.type = type
        self.wordOrder = wordOrder
        self.byteOrder = byteOrder
    }

    /// The identity register viewed as a read-only register definition, for decoding.
    public var definition: RegisterDefinition {
        RegisterDefinition(
            registerId: registerId, address: address, type: type, wordOrder: wordOrder,
            byteOrder: byteOrder, access: .ro, clone: false)
    }
}

/// A single-register write run before or after a replay's writes (unlock, commit to EEPROM, …).
public struct WriteStep: Codable, Sendable, Hashable {
    public var address: Int
    public var value: Int

    public init(address: Int, value: Int) {
        self.address = address
        self.value = value
    }
}

/// One settings screen: registers in write order plus the steps around a replay.
public struct PageDefinition: Codable, Sendable, Hashable {
    /// Safe identifier (`[A-Za-z0-9][A-Za-z0-9._-]*`), also the template's file name.
    public var id: String
    public var title: String?
    /// Registers that must match the template's source before a replay.
    public var identity: [IdentityRegister]?
    public var beforeWrite: [WriteStep]?
    public var afterWrite: [WriteStep]?
    /// Registers in write order.
    public var registers: [RegisterDefinition]
    /// The "not set" convention of registers that declare no `unset` (default: the type's maximum).
    public var unsetStyle: UnsetStyle?
    /// What the page is for, for people (not part of the page hash).
    public var description: String?

    public init(
        id: String, title: String? = nil, identity: [IdentityRegister]? = nil,
        beforeWrite: [WriteStep]? = nil, afterWrite: [WriteStep]? = nil,
        registers: [RegisterDefinition], unsetStyle: UnsetStyle? = nil, description: String? = nil
    ) {
        self.unsetStyle = unsetStyle
        self.description = description
        self.id = id
        self.title = title
        self.identity = identity
        self.beforeWrite = beforeWrite
        self.afterWrite = afterWrite
        self.registers = registers
    }
}
