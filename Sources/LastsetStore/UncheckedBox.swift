import CSQLite
import Dispatch
import Foundation
import Synchronization

/// A value handed across threads where the hand-over itself is the synchronisation (a semaphore, a queue).
final class UncheckedBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
