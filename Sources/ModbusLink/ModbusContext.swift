import CModbus
import Dispatch
import LastsetSystem
import Glibc
import LastsetCore

/// Owns a connected libmodbus context; closing and freeing it happens exactly once, when the last
/// reference goes (on `close()` or when the connection itself is released).
final class ModbusContext: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit {
        modbus_close(pointer)
        modbus_free(pointer)
    }
}
