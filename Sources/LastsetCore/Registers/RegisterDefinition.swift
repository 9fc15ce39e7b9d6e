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
