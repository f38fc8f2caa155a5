import Synchronization

/// Tells, for one broker connection, when fan-outs the broker acknowledged are routed into their
/// devices' sessions, where a clean stop of the broker saves them.
///
/// The broker acknowledges a fan-out once its copies are queued for its next loop turn; a broker
/// stopped before that turn saves its sessions without them. So a fan-out is settled only after
/// a barrier sent after its acknowledgement was answered: the plugin answers a barrier at the
/// end of the loop turn after the one that read it, when every copy queued before is routed.
/// One barrier is in flight at a time; what was acknowledged meanwhile waits for the next one,
/// so the barriers cost one small message per broker round trip, not one per fan-out.
///
/// A plugin that saves on request (`PluginFeatures.saved`) answers a barrier later, once the
/// broker wrote its persistence file after routing: then a crash of the broker cannot lose what
/// the barrier covers either, direct publications included (they are routed when acknowledged,
/// but saved only then).
///
/// Waiters learn `.routed`, or `.lost` when the connection ended first (the broker may have
/// stopped before routing: the publications go again to it once it is back), or `.timedOut`.
/// Each waiter names the connection its publications went out on (`MQTTClient.disconnections`
/// when they were handed over): an answer read on a later connection (a barrier libmosquitto
/// sent again to a restarted broker) is `.lost` for it.
final class RoutingBarrier: Sendable {
    enum Outcome: Sendable { case routed, lost, timedOut }
    typealias Waiter = @Sendable (Outcome) -> Void

    private struct Entry {
        let connection: Int
        let waiter: Waiter
    }

    private struct InFlight {
        let id: String
        let waiters: [Entry]
        let sentAt: ContinuousClock.Instant
    }

    private struct State {
        /// This connection's prefix of barrier IDs; nil while disconnected.
        var connection: String?
        var sent = 0
        var inFlight: InFlight?
        /// Acknowledged after the barrier in flight was sent: they wait for the next one.
        var waiting: [Entry] = []
    }

    /// Publishes the barrier with this ID on the control topic (QoS 1); false when it could not
    /// be handed to the connection.
    let send: @Sendable (String) -> Bool
    /// The connection now (`MQTTClient.disconnections`).
    let connection: @Sendable () -> Int
    /// How long an answer may take before its waiters are told `.timedOut`.
    let timeout: Duration
    private let state = Mutex(State())

    init(timeout: Duration, connection: @escaping @Sendable () -> Int, send: @escaping @Sendable (String) -> Bool) {
        self.timeout = timeout
        self.connection = connection
        self.send = send
    }

    /// A new connection, whose barriers are named `<prefix>x<number>` (letters and digits).
    func connected(prefix: String) {
        let orphans = state.withLock { state -> [Entry] in
            defer { state = State(connection: prefix) }
            return (state.inFlight?.waiters ?? []) + state.waiting
        }
        for entry in orphans { entry.waiter(.lost) }
    }

    /// The connection ended: nothing waiting will be answered on it.
    func disconnected() {
        let orphans = state.withLock { state -> [Entry] in
            defer { state = State() }
            return (state.inFlight?.waiters ?? []) + state.waiting
        }
        for entry in orphans { entry.waiter(.lost) }
    }

    /// Calls `waiter` once everything the broker acknowledged so far is routed. Call it after
    /// the acknowledgements arrived, for publications handed over on `connection`.
    func afterRouting(connection: Int, _ waiter: @escaping Waiter) {
        let lost = state.withLock { state -> Bool in
            guard state.connection != nil, connection == self.connection() else { return true }
            state.waiting.append(Entry(connection: connection, waiter: waiter))
            return false
        }
        if lost { return waiter(.lost) }
        sendNext()
    }

    /// The plugin's answer to barrier `id` (any gateway's: the others' are not ours).
    func answered(_ id: String) {
        let waiters = state.withLock { state -> [Entry]? in
            guard let inFlight = state.inFlight, inFlight.id == id else { return nil }
            state.inFlight = nil
            return inFlight.waiters
        }
        guard let waiters else { return }
        let now = connection()
        for entry in waiters { entry.waiter(entry.connection == now ? .routed : .lost) }
        sendNext()
    }

    /// Tells the waiters of a barrier unanswered for longer than `timeout` so (called about once
    /// a second), and sends the next one.
    func expire(now: ContinuousClock.Instant = .now) {
        let waiters = state.withLock { state -> [Entry]? in
            guard let inFlight = state.inFlight, now - inFlight.sentAt > timeout else { return nil }
            state.inFlight = nil
            return inFlight.waiters
        }
        guard let waiters else { return }
        for entry in waiters { entry.waiter(.timedOut) }
        sendNext()
    }

    /// Sends a barrier for what waits, unless one is in flight.
    private func sendNext() {
        let next = state.withLock { state -> (id: String, waiters: [Entry])? in
            guard state.inFlight == nil, !state.waiting.isEmpty, let connection = state.connection else { return nil }
            state.sent += 1
            let id = "\(connection)x\(state.sent)"
            state.inFlight = InFlight(id: id, waiters: state.waiting, sentAt: .now)
            state.waiting = []
            return (id, state.inFlight!.waiters)
        }
        guard let next, !send(next.id) else { return }
        // Not handed to the connection: it is going down.
        let failed = state.withLock { state -> Bool in
            guard state.inFlight?.id == next.id else { return false }
            state.inFlight = nil
            return true
        }
        if failed { for entry in next.waiters { entry.waiter(.lost) } }
    }
}
