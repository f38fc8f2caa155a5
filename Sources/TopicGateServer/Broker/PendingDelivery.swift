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

    func failures() async -> [Int: DeliveryFailure] {
        await withCheckedContinuation { waiter in whenSettled { waiter.resume(returning: $0) } }
    }
}
