import Synchronization

/// Publications already handed to their brokers, whose outcome is still to come: the failures
/// by index, as `DeviceLink.deliver` gives them, either awaited (`failures()`) or passed to a
/// callback on whichever thread learns the last of them (`whenSettled`), so that a caller
/// can leave the outcome to the broker's network loop instead of a task of its own.
///
/// What was acknowledged is not yet beyond loss: a fan-out's copies are routed into the
/// devices' sessions one broker loop turn later (`RoutingBarrier`). `whenRouted` tells, after
/// `whenSettled`, whether everything acknowledged got there (false: it goes to its broker
/// again); the acknowledgements alone drive the delivery, so that the next batch never waits
/// for this one's routing.
struct PendingDelivery: Sendable {
    typealias Outcome = @Sendable ([Int: DeliveryFailure]) -> Void
    typealias Routed = @Sendable (@escaping @Sendable (Bool) -> Void) -> Void

    /// Calls its argument once, with the failures, when the last outcome is known.
    let whenSettled: @Sendable (@escaping Outcome) -> Void
    /// Calls its argument once, after `whenSettled` was asked: true when every acknowledged
    /// publication is routed into its device's session.
    let whenRouted: Routed

    init(
        whenSettled: @escaping @Sendable (@escaping Outcome) -> Void,
        whenRouted: @escaping Routed = PendingDelivery.alreadyRouted
    ) {
        self.whenSettled = whenSettled
        self.whenRouted = whenRouted
    }

    /// An outcome that a task awaits (it starts when the outcome is asked for).
    init(
        awaiting failures: @escaping @Sendable () async -> [Int: DeliveryFailure],
        whenRouted: @escaping Routed = PendingDelivery.alreadyRouted
    ) {
        whenSettled = { done in Task { done(await failures()) } }
        self.whenRouted = whenRouted
    }

    /// An outcome known already.
    static func settled(_ failures: [Int: DeliveryFailure], whenRouted: @escaping Routed = alreadyRouted)
        -> PendingDelivery
    {
        PendingDelivery(whenSettled: { done in done(failures) }, whenRouted: whenRouted)
    }

    /// Publications routed as soon as they are acknowledged (PUBLISH packets; a broker whose
    /// plugin does not answer barriers).
    static let alreadyRouted: Routed = { done in done(true) }

    /// Routed when every one of `parts` is.
    static func allRouted(_ parts: [Routed]) -> Routed {
        guard parts.count > 1 else { return parts.first ?? alreadyRouted }
        return { done in
            let collected = Mutex((remaining: parts.count, routed: true))
            for part in parts {
                part { routed in
                    let all = collected.withLock { state -> Bool? in
                        state.routed = state.routed && routed
                        state.remaining -= 1
                        return state.remaining == 0 ? state.routed : nil
                    }
                    if let all { done(all) }
                }
            }
        }
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
            whenRouted = Self.allRouted(parts.map(\.pending.whenRouted))
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

    /// Whether the acknowledged publications got routed, learnt once, told to whoever asks
    /// before or after (`BrokerLink.start`).
    final class RoutingOutcome: Sendable {
        private let state = Mutex<(routed: Bool?, waiters: [@Sendable (Bool) -> Void])>((nil, []))

        func resolve(_ routed: Bool) {
            let waiters = state.withLock { state -> [@Sendable (Bool) -> Void] in
                guard state.routed == nil else { return [] }
                state.routed = routed
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter(routed) }
        }

        func whenRouted(_ waiter: @escaping @Sendable (Bool) -> Void) {
            let known = state.withLock { state -> Bool? in
                if state.routed == nil { state.waiters.append(waiter) }
                return state.routed
            }
            if let known { waiter(known) }
        }
    }

    func failures() async -> [Int: DeliveryFailure] {
        await withCheckedContinuation { waiter in whenSettled { waiter.resume(returning: $0) } }
    }
}
