import Foundation
import LastsetFormats

/// One register's archived value.
public struct TemplateEntry: Sendable, Hashable {
    public var registerId: String
    public var address: Int
    /// Number of 16-bit registers.
    public var length: Int
    /// Raw bytes as read, hex (authoritative; `value` is a readable view of it).
    public var valueData: String {
        didSet { hexWords = [UInt16](valueDataHex: valueData) }
    }
    public var value: RegisterValue
    /// When valueData was read.
    public var lastDate: Date
    /// `valueData`'s words, decoded once when the entry is made, decoded or its `valueData` set (a
    /// replay checks and writes every entry's words: parsing the hex each time cost an array per entry
    /// per replay); nil when `valueData` is not even-length hex. Not part of the archived form.
    public private(set) var hexWords: [UInt16]?

    /// The register layout the entry was captured against; nil in a template from before layouts were
    /// kept per entry (then it is admissible only on the very page definition it was captured against:
    /// `TemplateAdmission`).
    public var layout: EntryLayout?

    public init(
        registerId: String, address: Int, length: Int, valueData: String, value: RegisterValue, lastDate: Date,
        layout: EntryLayout? = nil
    ) {
        self.registerId = registerId
        self.address = address
        self.length = length
        self.valueData = valueData
        self.value = value
        self.lastDate = lastDate
        self.layout = layout
        hexWords = [UInt16](valueDataHex: valueData)
    }

    /// The entry a capture (or an import that reads values) makes of a register's words: its `value` is their
    /// decoding and its layout the register's, so the two can never disagree.
    public init(register: CompiledRegister, words: [UInt16], lastDate: Date) {
        let layout = EntryLayout(register)
        self.init(
            registerId: register.registerId, address: register.address, length: register.length,
            valueData: words.hexString,
            value: words.withUnsafeBufferPointer { RegisterCodec.decode($0, layout: layout.decoding) },
            lastDate: lastDate, layout: layout)
    }

    /// The words to write, from valueData (empty when it is not even-length hex).
    public var words: [UInt16] { hexWords ?? [] }
}

extension TemplateEntry: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = TemplateEntry(
        registerId: "", address: 0, length: 0, valueData: "", value: .unsigned(0), lastDate: .distantPast)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("address", &r.address)
        try f.field("lastDate", &r.lastDate)
        try f.field("layout", &r.layout)
        try f.field("length", &r.length)
        try f.field("registerId", &r.registerId)
        try f.field("value", &r.value)
        try f.field("valueData", &r.valueData)
    }
}
