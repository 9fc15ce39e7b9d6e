/// Two durable writes made at the same time (their fsyncs in flight together), where the second must not
/// outlive the first: a replay's journal beside its audit intent (until phase 3 of issue 20 makes them one commit).
enum SideBySide {
    /// Runs `first` and `second` concurrently. When `first` throws, `second`'s result (if it made one) is
    /// handed to `undo` and `first`'s error is thrown; otherwise `second`'s result is returned as it came.
    static func run<T: Sendable, E: Error>(
        _ first: @Sendable () async throws -> Void, _ second: () async throws(E) -> T, undo: (T) async -> Void
    ) async throws -> Result<T, E> {
        async let firstDone: Void = first()
        let made: Result<T, E>
        do throws(E) {
            made = .success(try await second())
        } catch {
            made = .failure(error)
        }
        do {
            try await firstDone
        } catch {
            if case .success(let value) = made { await undo(value) }
            throw error
        }
        return made
    }
}
