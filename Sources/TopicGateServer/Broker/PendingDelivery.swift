import Synchronization

/// Publications already handed to their brokers, whose outcome is still to come: the failures
/// by index, as `DeviceLink.deliver` gives them, either awaited (`failures()`) or passed to a
/// callback on whichever thread learns the last of them (`whenSettled`), so that a caller
/// can leave the outcome to the broker's network loop instead of a task of its own.
struct PendingDelivery: Sendable {
    typealias Outcome = @Sendable ([Int: DeliveryFailure]) -> Void

    /// Calls its argument once, with the failures, when the last outcome is known.
    let whenSettled: @Sendable (@escaping Outcome) -> Void

    init(whenSettled: @escaping @Sendable (@escaping Outcome) -> Void) {
        self.whenSettled = whenSettled
    }

    /// An outcome that a task awaits (it starts when the outcome is asked for).
    init(awaiting failures: @escaping @Sendable () async -> [Int: DeliveryFailure]) {
        whenSettled = { done in Task { done(await failures()) } }
    }

    /// An outcome known already.
    static func settled(_ failures: [Int: DeliveryFailure]) -> PendingDelivery {
        PendingDelivery { done in done(failures) }
    }

    /// The publications of one call to `DeviceLink.start`, the first of them at `offset` among
    /// all of a batch's.
    struct Part: Sendable {
        let offset: Int
        let pending: PendingDelivery
    }

    /// The outcome of several parts as one: settled once the last of them is, with each part's
    /// failures at their index among all of a batch's.
    init(combining parts: [Part]) {
        if parts.isEmpty {
            self = .settled([:])
        } else if parts.count == 1, parts[0].offset == 0 {
            self = parts[0].pending
        } else {
            whenSettled = { done in
                let collected = Mutex((remaining: parts.count, failures: [Int: DeliveryFailure]()))
                for part in parts {
                    part.pending.whenSettled { failures in
                        let all = collected.withLock { state -> [Int: DeliveryFailure]? in
                            for (index, failure) in failures { state.failures[part.offset + index] = failure }
                            state.remaining -= 1
                            return state.remaining == 0 ? state.failures : nil
                        }
                        if let all { done(all) }
                    }
                }
            }
        }
    }

    func failures() async -> [Int: DeliveryFailure] {
        await withCheckedContinuation { waiter in whenSettled { waiter.resume(returning: $0) } }
    }
}
