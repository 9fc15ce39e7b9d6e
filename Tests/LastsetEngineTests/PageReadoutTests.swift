import LastsetCore
import XCTest

@testable import LastsetEngine

/// The readout's allocation-free views agree with its word arrays; repeated spans are read once.
final class PageReadoutTests: XCTestCase {
    func testHexAndValueAgreeWithWords() {
        var r = PageReadout(covering: 100..<110)
        r.store([0x1234, 0xABCD, 0x0001, 0xFFFF], at: 100)
        r.store([0x7FFF], at: 108)
        let u32 = RegisterDefinition(registerId: "a", address: 100, type: .u32)
        let s16 = RegisterDefinition(registerId: "b", address: 103, type: .s16, byteOrder: .little)
        for (span, def) in [(AddressSpan(address: 100, length: 2), u32), (AddressSpan(address: 103, length: 1), s16)] {
            let words = r.words(for: span)!
            XCTAssertEqual(r.hex(for: span), words.bigEndianBytes.hexString)
            XCTAssertEqual(r.value(for: span, as: def), RegisterCodec.decode(words, as: def))
            XCTAssertTrue(r.has(span))
        }
        XCTAssertEqual(r.hex(for: AddressSpan(address: 100, length: 2)), "1234ABCD")
        // A word missing (104), outside the readout (98, 110) or an empty span: nothing.
        for span in [
            AddressSpan(address: 103, length: 2), AddressSpan(address: 98, length: 3), AddressSpan(address: 109, length: 2),
            AddressSpan(address: 101, length: 0),
        ] {
            XCTAssertNil(r.words(for: span))
            XCTAssertNil(r.hex(for: span))
            XCTAssertNil(r.value(for: span, as: u32))
            XCTAssertFalse(r.has(span))
        }
        r.forget(101, 102)
        XCTAssertNil(r.hex(for: AddressSpan(address: 100, length: 2)))
        var m = PageReadout(covering: 100..<110)
        m.merge(r, 100, 110)
        XCTAssertEqual(m.hex(for: AddressSpan(address: 102, length: 2)), "0001FFFF")
        XCTAssertEqual(m.hex(for: AddressSpan(address: 108, length: 1)), "7FFF")
        XCTAssertNil(m.hex(for: AddressSpan(address: 101, length: 1)))
    }

    func testDistinctSpans() {
        let a = AddressSpan(address: 1, length: 2)
        let b = AddressSpan(address: 3, length: 1)
        let c = AddressSpan(address: 3, length: 2)
        XCTAssertEqual(PageReader.distinct([a, b, c]), [a, b, c])
        XCTAssertEqual(PageReader.distinct([c, a, b, a, c]), [a, b, c])
        XCTAssertEqual(PageReader.distinct([]), [])
        XCTAssertEqual(PageReader.distinct([a, a]), [a])
    }
}
