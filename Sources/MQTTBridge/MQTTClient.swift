internal import CMosquitto
import Dispatch
import Foundation
import Synchronization
import TopicGateCore

/// A client of one MQTT broker over libmosquitto, driven by a network loop of its own (poll(),
/// so any descriptor number works; see `runNetworkLoop`): connect with automatic reconnect,
/// QoS 1 publish that returns when the broker's PUBACK arrives, subscribe with the granted QoS
/// checked, and the received messages as an `AsyncSequence`.
///
/// One owner per handle: this class creates the `struct mosquitto` in its throwing initializer
/// and destroys it in `deinit`. Call `shutdown()` before dropping it, never from a callback.
public final class MQTTClient: @unchecked Sendable {
    // @unchecked Sendable: `handle` is only passed to libmosquitto calls, which are safe from
    // any thread once the client is marked threaded (`mosquitto_threaded_set`); only the
    // network loop's thread connects, reads and writes. All Swift-side mutable state is in
    // `state`, a Mutex that is never held across a libmosquitto call.

    public let configuration: MQTTClientConfiguration
    /// Messages received on this client's subscriptions, in arrival order.
    public let messages: AsyncStream<MQTTMessage>
    /// Connection changes, in order.
    public let connectionEvents: AsyncStream<MQTTConnectionEvent>

    let handle: OpaquePointer
    private let state = Mutex(State())
    /// Wakes the network loop.
    let wake: WakeSignal
    /// Held by the network loop around its libmosquitto calls that read, write, connect or
    /// close, and by a caller that writes what it queued (`writeQueued`).
    let socketAccess = Mutex(())
    /// Signalled once when the network loop's thread ends.
    let loopEnded = DispatchSemaphore(value: 0)
    private let messageSink: AsyncStream<MQTTMessage>.Continuation
    private let eventSink: AsyncStream<MQTTConnectionEvent>.Continuation
    private let onConnect: (@Sendable () -> Void)?

    /// The Swift-side state shared with libmosquitto's thread.
    private struct State {
        var connected = false
        /// Connections lost so far (`disconnections`).
        var disconnections = 0
        var closing = false
        /// Set by `shutdown`, for good: no connect after it.
        var shutDown = false
        var loopStarted = false
        var loopIntent: LoopIntent { shutDown ? .stop : closing ? .idle : .connect }
        var refusal: MQTTError?
        var connectWaiters: [CheckedContinuation<Void, any Error>] = []
        /// PUBACKs (empty result) and SUBACKs (granted QoS) matched to their calls.
        var acknowledgements = AcknowledgementTable<AcknowledgementWaiter>()
        /// The deadlines of the calls that wait for acknowledgements, by a number of their own.
        var deadlines: [UInt64: AcknowledgementDeadline] = [:]
        var deadlinesSet: UInt64 = 0
        /// When the network loop's current wait ends at the latest; nil while it is not
        /// waiting (it looks at the deadlines before it waits again).
        var loopWakesBy: ContinuousClock.Instant?
        var loopRuns: Bool { loopStarted && !shutDown }
    }

    private static let libraryStatus: Int32 = mosquitto_lib_init()

    /// Creates the client; nothing is sent until `connect()`. `onConnect` runs on libmosquitto's
    /// thread after every accepted CONNECT (first and reconnects); it must not block.
    public init(configuration: MQTTClientConfiguration, onConnect: (@Sendable () -> Void)? = nil) throws(MQTTError) {
        try MQTTError.check(Self.libraryStatus, "initialise libmosquitto")
        guard let handle = mosquitto_new(configuration.clientID, configuration.cleanSession, nil) else {
            throw MQTTError(code: .library, detail: "mosquitto_new failed for client \(configuration.clientID)")
        }
        self.handle = handle
        self.wake = try WakeSignal()
        self.configuration = configuration
        self.onConnect = onConnect
        (messages, messageSink) = AsyncStream.makeStream(of: MQTTMessage.self)
        (connectionEvents, eventSink) = AsyncStream.makeStream(of: MQTTConnectionEvent.self)
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        try configure()
    }

    deinit {
        messageSink.finish()
        eventSink.finish()
        // Stops the loop thread if it still runs, then frees the handle.
        mosquitto_destroy(handle)
    }

    private func configure() throws(MQTTError) {
        // Calls come from other threads than the loop's: they queue, and the loop writes.
        try MQTTError.check(mosquitto_threaded_set(handle, true), "mark the client threaded")
        try MQTTError.check(
            mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311), "set protocol version")
        // Small packets go out at once: a PUBACK, or a routing barrier behind a fan-out, held by
        // Nagle's algorithm until the broker's delayed ACK (40 ms) would stall what follows.
        try MQTTError.check(mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1), "set TCP_NODELAY")
        if configuration.usesTLS {
            try MQTTError.check(
                mosquitto_tls_set(
                    handle, configuration.tlsCAFile, configuration.tlsCAPath, configuration.tlsCertificateFile,
                    configuration.tlsKeyFile, nil),
                "set TLS")
        }
        if configuration.username != nil || configuration.password != nil {
            try MQTTError.check(
                mosquitto_username_pw_set(handle, configuration.username, configuration.password), "set credentials")
        }
        try MQTTError.check(
            mosquitto_reconnect_delay_set(
                handle, UInt32(configuration.reconnectDelay.min), UInt32(configuration.reconnectDelay.max), true),
            "set reconnect delay")
        try MQTTError.check(
            mosquitto_max_inflight_messages_set(handle, UInt32(configuration.maxInflightMessages)), "set inflight limit"
        )
        // Capture-free C callbacks; each recovers this client from the user-data pointer and runs
        // on libmosquitto's loop thread.
        mosquitto_connect_callback_set(handle) { _, context, rc in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().didConnect(Int32(rc))
        }
        mosquitto_disconnect_callback_set(handle) { _, context, rc in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().didDisconnect(Int32(rc))
        }
        mosquitto_publish_callback_set(handle) { _, context, mid in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().didAcknowledge(mid, granted: [])
        }
        mosquitto_subscribe_callback_set(handle) { _, context, mid, count, granted in
            guard let context else { return }
            let copied = (0..<Int(count)).map { granted?[$0] ?? 0x80 }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().didAcknowledge(mid, granted: copied)
        }
        mosquitto_message_callback_set(handle) { _, context, message in
            guard let context, let message else { return }
            // libmosquitto frees the message when this returns: copy it out now.
            let topic = String(cString: message.pointee.topic)
            let length = Int(message.pointee.payloadlen)
            let payload: [UInt8] =
                if let bytes = message.pointee.payload, length > 0 {
                    Array(UnsafeRawBufferPointer(start: bytes, count: length))
                } else { [] }
            let received = MQTTMessage(
                topic: topic, payload: payload, qos: MQTTQoS(rawValue: message.pointee.qos) ?? .atMostOnce,
                retained: message.pointee.retain, receivedAt: UnixMillis(Int64(Date().timeIntervalSince1970 * 1000)))
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().messageSink.yield(received)
        }
    }

    // MARK: Connecting

    /// True while the broker has accepted the current connection.
    public var isConnected: Bool { state.withLock { $0.connected } }

    /// How many times the connection was lost, counted on the network loop's thread when it
    /// learns it: two readings that differ tell that an answer read after the second may come
    /// from another connection (another broker, restarted) than a request made before the first.
    public var disconnections: Int { state.withLock { $0.disconnections } }

    /// The message IDs held for acknowledgements now (at most 65 535: a call finding its ID
    /// still held fails as ambiguous). Back to none once what was sent is acknowledged.
    public var messageIDsHeld: Int { state.withLock { $0.acknowledgements.entries.count } }

    /// The broker connection's descriptor (-1 while there is none).
    var socketDescriptor: Int32 { mosquitto_socket(handle) }

    /// What the network loop should do now.
    var loopIntent: LoopIntent { state.withLock { $0.loopIntent } }

    /// Starts connecting and returns when the broker first accepts (or throws when it refuses,
    /// or when nothing answered within `timeout`). Until the broker answers, the network loop
    /// keeps retrying; once connected, it reconnects on its own after a lost connection.
    public func connect(timeout: Duration = .seconds(30)) async throws {
        let start = try state.withLock { state throws(MQTTError) -> Bool in
            if state.shutDown { throw MQTTError(code: .closed, detail: "client shut down") }
            state.refusal = nil
            state.closing = false
            defer { state.loopStarted = true }
            return !state.loopStarted
        }
        if start {
            // The thread keeps the client alive until it ends (after `shutdown()`).
            let thread = Thread { self.runNetworkLoop() }
            thread.name = "mqtt-\(configuration.clientID)"
            thread.start()
        }
        wake.signal()
        try await withDeadline(timeout, "CONNACK from \(configuration.host):\(configuration.port)") {
            self.expireConnectWaiters()
        } operation: {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                let outcome = self.state.withLock { state -> Result<Void, MQTTError>? in
                    if state.connected { return .success(()) }
                    if let refusal = state.refusal { return .failure(refusal) }
                    if state.closing { return .failure(MQTTError(code: .closed, detail: "client shut down")) }
                    state.connectWaiters.append(waiter)
                    return nil
                }
                if let outcome { waiter.resume(with: outcome.mapError { $0 }) }
            }
        }
    }

    /// Disconnects cleanly; the client can `connect()` again.
    public func disconnect() {
        state.withLock { $0.closing = true }
        _ = mosquitto_disconnect(handle)
        wake.signal()
    }

    /// Disconnects, ends the network loop and fails every waiter. It waits a few seconds at most
    /// for the loop (which ends within one poll, or once a connect attempt in progress returns).
    public func shutdown() {
        let started = state.withLock { state -> Bool in
            state.closing = true
            state.shutDown = true
            return state.loopStarted
        }
        wake.signal()
        if started { _ = loopEnded.wait(timeout: .now() + .seconds(5)) }
        let (connectWaiters, ackWaiters) = state.withLock { state in
            state.connected = false
            defer { state.connectWaiters = [] }
            return (state.connectWaiters, state.acknowledgements.removeAll())
        }
        let closed = MQTTError(code: .closed, detail: "client shut down")
        for waiter in connectWaiters { waiter.resume(throwing: closed) }
        for waiter in ackWaiters { waiter.failed(closed) }
        messageSink.finish()
        eventSink.finish()
    }

    // MARK: Publishing and subscribing

    /// Publishes `payload` to `topic`. With QoS 1 or 2 it returns once the broker has
    /// acknowledged the message, or throws `timeout` (libmosquitto may still deliver it later:
    /// at least once, never silently dropped).
    public func publish(
        _ topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = false,
        timeout: Duration = .seconds(10)
    ) async throws {
        try await startPublishing(topic, payload: payload, qos: qos, retain: retain).acknowledged(timeout: timeout)
    }

    /// Hands `payload` to libmosquitto now (so that publications started one after another go
    /// out in that order) and returns the publication, whose acknowledgement can be awaited.
    public func startPublishing(_ topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = false)
        throws(MQTTError) -> MQTTPublication
    {
        // QoS 0 has no PUBACK; libmosquitto reports the send, maybe after this returns.
        let mid = try issue("publish to \(topic)", awaited: qos != .atMostOnce) { mid in
            payload.withUnsafeBytes { bytes in
                mosquitto_publish(handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, qos.rawValue, retain)
            }
        }
        return MQTTPublication(client: self, messageID: mid, topic: topic, qos: qos)
    }

    /// Subscribes to `filter` and returns the QoS the broker granted; throws
    /// `subscriptionRefused` when the broker answered 0x80.
    @discardableResult
    public func subscribe(_ filter: String, qos: MQTTQoS = .atLeastOnce, timeout: Duration = .seconds(10))
        async throws -> MQTTQoS
    {
        let mid = try issue("subscribe to \(filter)") { mid in mosquitto_subscribe(handle, &mid, filter, qos.rawValue) }
        let granted = try await acknowledgement(of: mid, timeout: timeout, "SUBACK for \(filter)")
        guard let first = granted.first, let grantedQoS = MQTTQoS(rawValue: first) else {
            throw MQTTError(
                code: .subscriptionRefused, returnCode: granted.first, detail: "subscription to \(filter) refused")
        }
        return grantedQoS
    }

    /// Hands one call to libmosquitto and registers the message ID it got, counted as being
    /// issued meanwhile (see `AcknowledgementTable`). Throws libmosquitto's error, or
    /// `ambiguousAcknowledgement` when the ID is still held by an earlier call.
    private func issue(_ what: String, awaited: Bool = true, _ call: (inout Int32) -> Int32) throws(MQTTError) -> Int32
    {
        state.withLock { $0.acknowledgements.beginIssuing() }
        var mid: Int32 = 0
        let rc = call(&mid)
        let ok = rc == MOSQ_ERR_SUCCESS.rawValue
        if ok { writeQueued() }
        let registration = state.withLock { $0.acknowledgements.issued(ok ? mid : nil, awaited: awaited) }
        try MQTTError.check(rc, what)
        if registration == .ambiguous {
            throw MQTTError(
                code: .ambiguousAcknowledgement,
                detail:
                    "\(what): message ID \(mid) is still held by an earlier call; its acknowledgement would be "
                    + "ambiguous"
            )
        }
        return mid
    }

    func acknowledgement(of mid: Int32, timeout: Duration, _ what: String) async throws -> [Int32] {
        let deadline = setDeadline(AcknowledgementDeadline(at: .now + timeout, messageIDs: [mid], what: what))
        defer { clearDeadline(deadline) }
        return try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<[Int32], any Error>) in
            switch self.state.withLock({ $0.acknowledgements.wait(mid, .one(waiter)) }) {
            case .waiting: break
            case .acknowledged(let granted): waiter.resume(returning: granted)
            case .abandoned:
                waiter.resume(throwing: MQTTError(code: .timeout, detail: "no \(what): it is no longer awaited"))
            }
        }
    }

    /// Awaits the broker's acknowledgement of each of `publications` (this client's) under one
    /// deadline for them all: the indices of those not acknowledged in time. One deadline for
    /// the batch, kept by the network loop, and one wake-up when its last acknowledgement
    /// arrives, not one per publication.
    public func unacknowledged(_ publications: [MQTTPublication], timeout: Duration) async -> Set<Int> {
        await withCheckedContinuation { (waiter: CheckedContinuation<Set<Int>, Never>) in
            whenAcknowledged(publications, timeout: timeout) { waiter.resume(returning: $0) }
        }
    }

    /// `unacknowledged` without a task: calls `done` once with the indices of those not
    /// acknowledged in time, on the thread that settled the last of them (libmosquitto's
    /// network loop, as a rule), or on the caller's when there is nothing to wait for. `done`
    /// must be short and must not wait: the loop reads nothing else meanwhile.
    public func whenAcknowledged(
        _ publications: [MQTTPublication], timeout: Duration, _ done: @escaping @Sendable (Set<Int>) -> Void
    ) {
        let awaited = publications.enumerated().filter { $0.element.qos != .atMostOnce }
        guard !awaited.isEmpty else { return done([]) }
        let batch = AcknowledgementBatch(count: awaited.count)
        let deadline = setDeadline(
            AcknowledgementDeadline(at: .now + timeout, messageIDs: awaited.map(\.element.messageID), what: "PUBACK"))
        batch.wait { [self] failed in
            clearDeadline(deadline)
            done(failed)
        }
        let registered = state.withLock { state in
            awaited.map { state.acknowledgements.wait($0.element.messageID, .batch(batch, index: $0.offset)) }
        }
        for (entry, publication) in zip(registered, awaited) {
            switch entry {
            case .waiting: break
            case .acknowledged: batch.settle(publication.offset, acknowledged: true)
            case .abandoned: batch.settle(publication.offset, acknowledged: false)
            }
        }
    }

    /// Runs `operation`, throwing `timeout` when it has not finished after `duration`.
    /// `expire` must resume the operation's waiter, since the group waits for it to end.
    private func withDeadline<T: Sendable>(
        _ duration: Duration, _ what: String, expire: @escaping @Sendable () -> Void,
        operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try? await Task.sleep(for: duration)
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
                expire()
                throw MQTTError(code: .timeout, detail: "no \(what) within \(duration)")
            }
            throw MQTTError(code: .closed, detail: "client shut down")
        }
    }

    /// Gives the network loop `deadline` to keep; the number to clear it with once its calls
    /// are settled. Without a running loop nothing could ever read their acknowledgements: they
    /// are given up at once (nil).
    private func setDeadline(_ deadline: AcknowledgementDeadline) -> UInt64? {
        let (number, wakeLoop) = state.withLock { state -> (UInt64?, Bool) in
            guard state.loopRuns else { return (nil, false) }
            state.deadlinesSet += 1
            state.deadlines[state.deadlinesSet] = deadline
            return (state.deadlinesSet, state.loopWakesBy.map { deadline.at < $0 } ?? false)
        }
        if number == nil { expire([deadline]) }
        if wakeLoop { wake.signal() }  // it waits past this deadline
        return number
    }

    private func clearDeadline(_ number: UInt64?) {
        guard let number else { return }
        state.withLock { _ = $0.deadlines.removeValue(forKey: number) }
    }

    /// The milliseconds the network loop may wait: `limit`, or less when a deadline comes
    /// sooner. Kept, so that a nearer deadline set meanwhile wakes the loop.
    func loopWait(upTo limit: Duration) -> Int32 {
        let now = ContinuousClock.now
        let until = state.withLock { state in
            var until = now + limit
            for deadline in state.deadlines.values where deadline.at < until { until = deadline.at }
            state.loopWakesBy = until
            return until
        }
        let milliseconds = (until - now) / .milliseconds(1)
        return Int32(max(0, milliseconds.rounded(.up)))
    }

    /// On the network loop after each wait: fails the waiters whose deadline passed (their
    /// late acknowledgements are dropped).
    func expireDueAcknowledgements() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [AcknowledgementDeadline] in
            state.loopWakesBy = nil
            // After every wait: nothing is built unless a deadline passed.
            guard state.deadlines.values.contains(where: { $0.at <= now }) else { return [] }
            let due = state.deadlines.filter { $0.value.at <= now }
            for number in due.keys { state.deadlines[number] = nil }
            return Array(due.values)
        }
        expire(due)
    }

    private func expire(_ deadlines: [AcknowledgementDeadline]) {
        guard !deadlines.isEmpty else { return }
        let waiters = state.withLock { state in
            deadlines.flatMap { deadline in
                deadline.messageIDs.compactMap { mid in state.acknowledgements.expire(mid).map { ($0, deadline.what) } }
            }
        }
        for (waiter, what) in waiters { waiter.failed(MQTTError(code: .timeout, detail: "no \(what) in time")) }
    }

    /// Fails the connect waiters after a deadline.
    private func expireConnectWaiters() {
        let waiters = state.withLock { state in
            defer { state.connectWaiters = [] }
            return state.connectWaiters
        }
        for waiter in waiters { waiter.resume(throwing: MQTTError(code: .timeout, detail: "no CONNACK in time")) }
    }

    // MARK: Callbacks (libmosquitto's loop thread)

    private func didConnect(_ rc: Int32) {
        if rc == 0 {
            let waiters = state.withLock { state in
                state.connected = true
                defer { state.connectWaiters = [] }
                return state.connectWaiters
            }
            for waiter in waiters { waiter.resume() }
            eventSink.yield(.connected)
            onConnect?()
        } else {
            let refusal = MQTTError.refused(rc)
            let waiters = state.withLock { state in
                state.connected = false
                state.refusal = refusal
                state.closing = true
                defer { state.connectWaiters = [] }
                return state.connectWaiters
            }
            // Stop the loop's retries: a refusal does not heal by itself.
            _ = mosquitto_disconnect(handle)
            for waiter in waiters { waiter.resume(throwing: refusal) }
            eventSink.yield(.refused(refusal))
        }
    }

    private func didDisconnect(_ rc: Int32) {
        let (wasConnected, expected) = state.withLock { state in
            defer {
                state.connected = false
                state.disconnections += 1
            }
            return (state.connected, state.closing || rc == 0)
        }
        if wasConnected { eventSink.yield(.disconnected(expected: expected)) }
    }

    func didAcknowledge(_ mid: Int32, granted: [Int32]) {
        let waiter = state.withLock { $0.acknowledgements.acknowledge(mid, granted: granted) }
        waiter?.acknowledged(granted: granted)
    }
}
