import LastsetCore
import XCTest

final class SerialDeviceRuleTests: XCTestCase {
    func testOnlyTerminalsArePassed() {
        let cases: [(SerialDeviceRule.FileKind, String?, String?)] = [
            (.characterDevice(major: 188, minor: 0), "tty", nil),  // ttyUSB0
            (.characterDevice(major: 166, minor: 0), "tty", nil),  // ttyACM0
            (.characterDevice(major: 4, minor: 64), "tty", nil),  // ttyS0
            (.characterDevice(major: 136, minor: 3), nil, nil),  // /dev/pts/3
            (.characterDevice(major: 143, minor: 9), nil, nil),
            (.characterDevice(major: 1, minor: 3), "mem", "the character device 1:3 is not a terminal (its class is mem)"),
            (
                .characterDevice(major: 10, minor: 130), "misc",
                "the character device 10:130 is not a terminal (its class is misc)"
            ),
            (.characterDevice(major: 249, minor: 0), nil, "the character device 249:0 is not a terminal (its class is none)"),
            (.characterDevice(major: 5, minor: 0), "tty", "the character device 5:0 is not a serial line"),
            (.characterDevice(major: 5, minor: 1), "tty", "the character device 5:1 is not a serial line"),
            (.characterDevice(major: 5, minor: 2), "tty", "the character device 5:2 is not a serial line"),
            (.regularFile, nil, "it is a regular file"), (.directory, nil, "it is a directory"), (.fifo, nil, "it is a FIFO"),
            (.socket, nil, "it is a socket"), (.blockDevice, nil, "it is a block device"),
        ]
        for (kind, subsystem, refusal) in cases {
            XCTAssertEqual(SerialDeviceRule.refusal(kind, subsystem: subsystem), refusal, "\(kind)")
        }
    }
}
