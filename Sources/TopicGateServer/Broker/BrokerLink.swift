import Logging
import MQTTBridge
import ServiceLifecycle
import Synchronization
import TopicGateCore
import TopicGateStore

/// The gateway's own MQTT connection to one broker (the plugin's superuser account): delivers
/// payloads to device topics with QoS 1 and sends revocations on the plugin's control topic.
/// Whenever it (re)connects it sends every outstanding revocation again, so a restarted broker
/// forgets nothing, asks the plugin who is connected (then follows its presence reports) and
/// whether it takes fan-outs, and wakes the outbox. Until the plugin has said so on this
/// connection, each publication goes as a PUBLISH of its own; from then on as fan-outs
/// (`PublicationPlan`).
final class BrokerLink: Service {
    let address: BrokerAddress
    let client: MQTTClient
    let store: any InstallationStore
    let time: TimeSource
    let onConnected: @Sendable () -> Void
    let logger: Logger
    /// Where the plugin's presence reports go.
    let presence: DevicePresence
    /// Where messages on `<mqttTopic>/state` go (set once, before the link runs). In a struct:
    /// a closure held by a `Mutex` as its value itself gains a reabstraction thunk at every
    /// access, so each state would cost more than the last.
    private let stateHandler = Mutex<StateHandler?>(nil)

    private struct StateHandler: Sendable {
        let handle: @Sendable (MQTTMessage) async -> Void
    }
    /// The gateways share the state subscription: each published state reaches one of them.
    static let stateFilter = "$share/topicgate/+/state"
    /// The broker's `max_packet_size`: larger packets are never sent.
    let maximumPacketSize: Int
    /// How long a publication may wait for its PUBACK.
    let acknowledgementTimeout: Duration = .seconds(10)
    /// What the plugin was asked on this connection, and what it answered: nil nonce while
    /// disconnected; `known` once it answered, or once it had time to and said nothing.
    private let pluginFeatures = Mutex(PluginState())
    /// How long a new connection waits for the plugin's features before it delivers without
    /// them (a plugin that does not know the request never answers).
    let featuresGrace: Duration = .seconds(2)

    private struct PluginState {
        var nonce: String?
        var fanOut = false
        var fanOutBatches = false
        var routed = false
        var saved = false
        var known = false
    }
    /// When fan-outs are routed into their devices' sessions (settled only then).
    let routing: RoutingBarrier

    init(
        address: BrokerAddress, configuration: PushConfiguration, signer: MQTTCredentialSigner,
        store: any InstallationStore, time: TimeSource, logger: Logger, presence: DevicePresence = DevicePresence(),
        onConnected: @escaping @Sendable () -> Void
    ) throws {
        var link = MQTTClientConfiguration(
            host: address.host, port: address.port,
            clientID: "\(configuration.gatewayUsername)-\(Secrets.randomHex(bytes: 6))",
            username: configuration.gatewayUsername, cleanSession: true, keepAlive: 30, reconnectDelay: (1, 4),
            maxInflightMessages: 1000)
        // The gateway's password is the plugin's superuser's: short-lived, signed for each CONNECT.
        let username = configuration.gatewayUsername
        let lifetime = configuration.gatewayPasswordLifetime
        link.renewPassword = {
            let now = time.seconds()
            return signer.gatewayPassword(username: username, issuedAt: now, expiresAt: now + lifetime)
        }
        if let tls = configuration.brokerTLS {
            link.tlsCAFile = tls.certificateAuthority
            link.tlsCAPath = tls.certificateAuthority == nil ? BrokerTLS.systemCertificates : nil
            link.tlsCertificateFile = tls.certificate
            link.tlsKeyFile = tls.privateKey
        }
        let client = try MQTTClient(configuration: link)
        // A barrier goes with QoS 0: its answer is its acknowledgement, and nothing waits for a
        // PUBACK. With QoS 1 each barrier's acknowledgement was kept for a waiter that never came,
        // holding its message ID: after 65 535 barriers every ID was taken and publications failed
        // as ambiguous. One sent on a connection that ends is lost with it either way
        // (`RoutingBarrier.disconnected`).
        routing = RoutingBarrier(timeout: acknowledgementTimeout, connection: { client.disconnections }) { id in
            (try? client.startPublishing(
                MQTTControlMessage.topic, payload: MQTTControlMessage.barrier(id: id), qos: .atMostOnce)) != nil
        }
        self.address = address
        self.client = client
        self.maximumPacketSize = configuration.maximumPacketSize
        self.store = store
        self.time = time
        var logger = logger
        logger[metadataKey: "broker"] = "\(address.name)"
        self.logger = logger
        self.onConnected = onConnected
        self.presence = presence
    }

    /// Connected, and what the plugin does is known: a publication handed over before that
    /// would be settled on the broker's acknowledgement alone, before a save.
    var isReady: Bool { client.isConnected && pluginFeatures.withLock { $0.known } }

    /// True once the broker's plugin said, on this connection, that it takes fan-outs.
    var fansOut: Bool { client.isConnected && pluginFeatures.withLock { $0.fanOut } }

    /// Hands every state a device publishes to `handler`.
    func receiveStates(_ handler: @escaping @Sendable (MQTTMessage) async -> Void) {
        stateHandler.withLock { $0 = StateHandler(handle: handler) }
    }

    func run() async throws {
        await withTaskCancellationOrGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.connectUntilAccepted() }
                group.addTask { await self.watchConnection() }
                group.addTask { await self.forwardStates() }
                group.addTask {
                    // A barrier unanswered in time (a reply lost without the connection).
                    while !Task.isCancelled && !Task.isShuttingDownGracefully {
                        try? await Task.sleep(for: .seconds(1))
                        self.routing.expire()
                    }
                }
            }
        } onCancelOrGracefulShutdown: {
            self.client.shutdown()
        }
    }

    private func connectUntilAccepted() async {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await client.connect(timeout: .seconds(10))
                return
            } catch let error as MQTTError where error.code == .closed {
                return
            } catch {
                logger.warning("Cannot connect to the broker yet", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func watchConnection() async {
        for await event in client.connectionEvents {
            switch event {
            case .connected:
                logger.info("Connected to the broker")
                let nonce = Secrets.randomHex(bytes: 8)
                pluginFeatures.withLock { $0 = PluginState(nonce: nonce) }
                routing.connected(prefix: nonce)
                await resendRevocations()
                await subscribeToStates()
                await followPresence()
                // Deliveries wait for the plugin's features: until then a publication would be
                // settled on its acknowledgement, which a crash of the broker can undo.
                await waitForFeatures(nonce: nonce)
                onConnected()
            case .refused(let error):
                logger.error("The broker refused the gateway's credentials", metadata: ["error": "\(error)"])
            case .disconnected(let expected):
                pluginFeatures.withLock { $0 = PluginState() }
                routing.disconnected()
                if !expected { logger.warning("Lost the broker connection; reconnecting") }
            }
        }
    }

    /// Returns once the plugin answered the features request `nonce`, or `featuresGrace` passed
    /// (then deliveries go without what it would have said), or the connection changed.
    private func waitForFeatures(nonce: String) async {
        let deadline = ContinuousClock.now + featuresGrace
        while ContinuousClock.now < deadline, !Task.isCancelled {
            let waiting = pluginFeatures.withLock { $0.nonce == nonce && !$0.known }
            if !waiting { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
        let silent = pluginFeatures.withLock { state -> Bool in
            guard state.nonce == nonce, !state.known else { return false }
            state.known = true
            return true
        }
        if silent {
            logger.warning(
                "The broker's plugin did not say what it does: pushes are settled on the broker's acknowledgement alone"
            )
        }
    }

    private func subscribeToStates() async {
        guard stateHandler.withLock({ $0 != nil }) else { return }
        do {
            try await client.subscribe(Self.stateFilter)
        } catch {
            logger.error("Cannot subscribe to thing states", metadata: ["error": "\(error)"])
        }
    }

    /// Subscribes to the plugin's presence reports, then asks for the devices connected now and
    /// for what the plugin can do (both answered on the presence topic).
    private func followPresence() async {
        guard let nonce = pluginFeatures.withLock({ $0.nonce }) else { return }
        do {
            try await client.subscribe(PresenceReport.topic)
            // Before the request: from its answer on, the plugin may send changes there.
            try await client.subscribe(PresenceReport.changesTopic)
            try await client.publish(
                MQTTControlMessage.topic, payload: MQTTControlMessage.presenceAndFeaturesRequest(nonce: nonce),
                timeout: .seconds(5))
        } catch {
            logger.error("Cannot follow device presence", metadata: ["error": "\(error)"])
        }
    }

    /// Presence reports to `presence`, states to the state handler.
    private func forwardStates() async {
        for await message in client.messages {
            if message.topic == PresenceReport.topic || message.topic == PresenceReport.changesTopic {
                if let report = PresenceReport(payload: message.payload) {
                    presence.record(report, broker: address.name, at: time.now())
                } else if let receipt = RoutingReceipt(payload: message.payload) {
                    routing.answered(receipt.id)
                } else if let features = PluginFeatures(payload: message.payload) {
                    learn(features)
                }
                continue
            }
            guard let handler = stateHandler.withLock({ $0 }) else { continue }
            await handler.handle(message)
        }
    }

    /// Takes the plugin's answer if it is to this connection's request (other gateways' answers
    /// come on the same topic).
    private func learn(_ features: PluginFeatures) {
        let answered = pluginFeatures.withLock { state -> Bool in
            guard state.nonce == features.nonce else { return false }
            state.fanOut = features.fanOut
            state.fanOutBatches = features.fanOutBatches
            state.routed = features.routed
            state.saved = features.saved
            state.known = true
            return true
        }
        guard answered else { return }
        logger.info(
            "The broker's plugin answered",
            metadata: [
                "fanOut": "\(features.fanOut)", "fanOutBatches": "\(features.fanOutBatches)",
                "routed": "\(features.routed)", "saved": "\(features.saved)",
            ])
        if !features.saved {
            logger.warning(
                "The broker does not save on request (no plugin_opt_persistence_file, or persistence off): a crash of it loses the pushes it queued for away devices since its last autosave",
                metadata: ["broker": "\(address.name)"])
        }
    }

    private func resendRevocations() async {
        do {
            let outstanding = try await store.outstandingRevocations(now: time.seconds())
            if !outstanding.isEmpty { await revoke(outstanding) }
        } catch {
            logger.error("Cannot load revocations", metadata: ["error": "\(error)"])
        }
    }

    func deliver(_ publications: [DevicePublication]) async -> [Int: DeliveryFailure] {
        await start(publications).failures()
    }

    /// Hands every publication to libmosquitto in order, each alone or in fan-outs
    /// (`PublicationPlan`); the pending outcome awaits their acknowledgements, then, for fan-outs
    /// to a plugin that answers routing barriers, their routing into the devices' sessions, and
    /// for any publication to a plugin that saves on request, the broker's save of them
    /// (`RoutingBarrier`, `PendingDelivery.whenRouted`): false when the connection ended first
    /// (the broker may have stopped or crashed before) or the answer did not come.
    func start(_ publications: [DevicePublication]) -> PendingDelivery {
        let (fanOut, batches, routed, saved) = pluginFeatures.withLock {
            ($0.fanOut, $0.fanOutBatches, $0.routed, $0.saved)
        }
        let plan = PublicationPlan(
            publications, fanOut: fanOut && client.isConnected, batches: batches, maximumPacketSize: maximumPacketSize)
        var confirmsRouting = false
        var failed: [Int: DeliveryFailure] = [:]
        var started: [(indices: [Int], publication: MQTTPublication)] = []
        func startFanOut(_ indices: [Int], _ bytes: [UInt8]) {
            do {
                started.append((indices, try self.client.startPublishing(MQTTFanOut.topic, payload: bytes)))
                confirmsRouting = confirmsRouting || routed
            } catch {
                for index in indices { failed[index] = .unacknowledged }
            }
        }
        for step in plan.steps {
            switch step {
            case .refused(let index, let size):
                failed[index] = .refused(
                    "a \(size)-byte packet is over the broker's max_packet_size of \(maximumPacketSize)")
            case .direct(let index):
                let publication = publications[index]
                do {
                    started.append(
                        ([index], try client.startPublishing(publication.topic, payload: publication.payload)))
                    // Routed when acknowledged, but saved only by a barrier's save.
                    confirmsRouting = confirmsRouting || saved
                } catch {
                    failed[index] = .unacknowledged
                }
            case .fanOut(let indices):
                startFanOut(indices, Self.fanOut(indices, of: publications).bytes)
            case .fanOutBatch(let fanOuts):
                startFanOut(
                    fanOuts.flatMap { $0 }, MQTTFanOutBatch(fanOuts.map { Self.fanOut($0, of: publications) }).bytes)
            }
        }
        let client = self.client
        let timeout = acknowledgementTimeout
        let routing = confirmsRouting ? self.routing : nil
        // The connection they go out on: acknowledged on a later one (libmosquitto sent them
        // again to a restarted broker), what the first had was lost.
        let connection = client.disconnections
        let routingOutcome = PendingDelivery.RoutingOutcome()
        return PendingDelivery(
            whenSettled: { [failed, started] done in
                // One deadline for the whole batch (a timer per publication was a sixth of the
                // gateway's time in a large fan-out).
                client.whenAcknowledged(started.map(\.publication), timeout: timeout) { positions in
                    let settle: @Sendable (Bool) -> Void = { answering in
                        var failures = failed
                        for position in positions {
                            for index in started[position].indices {
                                failures[index] = answering ? .unacknowledged : .brokerUnavailable
                            }
                        }
                        if let routing, positions.count < started.count {
                            routing.afterRouting(connection: connection) { outcome in
                                routingOutcome.resolve(outcome == .routed)
                            }
                        } else {
                            routingOutcome.resolve(true)
                        }
                        done(failures)
                    }
                    guard !positions.isEmpty else { return settle(true) }
                    Self.probe(client, timeout: Self.probeTimeout, answered: settle)
                }
            }, whenRouted: routingOutcome.whenRouted)
    }

    /// The fan-out of the publications at `indices`, which share one payload.
    private static func fanOut(_ indices: [Int], of publications: [DevicePublication]) -> MQTTFanOut {
        MQTTFanOut(payload: publications[indices[0]].payload, topics: indices.map { publications[$0].topic })
    }

    /// A topic no device may read, for `probe`.
    static let probeTopic = "topicgate/probe"
    static let probeTimeout: Duration = .seconds(5)

    /// Whether the broker answers at all: an empty QoS 1 publication on `probeTopic`,
    /// acknowledged within `timeout`. A broker that answers it but left a publication
    /// unacknowledged stalled on that one (an attempt for its message); a broker that answers
    /// nothing (frozen, or its connection half-open) is unavailable, which costs no attempt: its
    /// pushes wait for it instead of becoming dead letters.
    static func probe(_ client: MQTTClient, timeout: Duration, answered: @escaping @Sendable (Bool) -> Void) {
        guard let probe = try? client.startPublishing(probeTopic, payload: []) else { return answered(false) }
        client.whenAcknowledged([probe], timeout: timeout) { missing in answered(missing.isEmpty) }
    }

    func revoke(_ installations: [Installation]) async {
        let revocations = installations.compactMap { installation in
            installation.credentialsExpireAt.map {
                MQTTControlMessage.Revocation(username: installation.mqttTopic, expiresAt: $0)
            }
        }
        // Not connected: there is no live connection to kick, and the revocations are in the
        // store, sent on the next connect before anything else. Never block the request.
        guard client.isConnected else { return }
        // Chunks keep each control message well under the broker's packet limit.
        for start in stride(from: 0, to: revocations.count, by: 500) {
            let chunk = MQTTControlMessage(revoking: Array(revocations[start..<min(start + 500, revocations.count)]))
            do {
                try await client.publish(MQTTControlMessage.topic, payload: chunk.payload, timeout: .seconds(5))
            } catch {
                // The revocations are in the store: they are sent again when the link reconnects.
                logger.warning("Could not send revocations to the broker", metadata: ["error": "\(error)"])
            }
        }
    }
}
