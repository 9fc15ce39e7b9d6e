import LastsetCore
import ModbusLink
import XCTest

/// Runs `body` and returns the ModbusError it threw (nil when it succeeded).
func modbusError<T>(_ body: () async throws(ModbusError) -> T) async -> ModbusError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

/// Fast options for tests: short timeout, no retries unless asked.
func fastOptions(timeout: Duration = .milliseconds(300), retries: Int = 0) -> LinkOptions {
    LinkOptions(timeout: timeout, retries: retries, requestDelay: .zero)
}
