import TopicGateCore
import TopicGateStore

/// The stateless part of delivery: a batch's recipients → their devices' publications → the
/// brokers, whose outcomes come back as a `PendingDelivery`. It keeps nothing of its own
/// (the devices it reads are kept by `LiveEndpoints`); the push core decides what to publish
/// and what the outcomes mean (`PushPipeline`).
struct PushPublisher: Sendable {
    /// The recipients' devices, kept in memory on the embedded store.
    let devices: LiveEndpoints
    let link: any DeviceLink
    /// Recipients whose devices are looked up, and published to, at a time (`start`).
    let lookupChunk: Int

    /// Hands `batch` to the brokers: one publication per live MQTT installation of each
    /// recipient (at this moment, so a revoked device gets nothing), except on the brokers a
    /// message reached before. Returns without waiting for the acknowledgements.
    ///
    /// The recipients' devices are looked up `lookupChunk` recipients at a time (all of them at
    /// once for a batch of small messages), and each chunk's publications go to the brokers as
    /// soon as they are known, while the next chunk's devices are being read: a send to 100 000
    /// devices keeps the brokers busy with the first devices while the gateway reads the next,
    /// instead of reading all before publishing any, and reading and publishing overlap (the
    /// devices of a batch with more recipients than `LiveEndpoints` keeps are read, not
    /// kept). Each publication's device is kept (`StartedBatch.targets`) only when a message of
    /// the batch is traced.
    /// Should a lookup fail midway, the message stays in the outbox and is delivered again
    /// (at least once): the devices of the chunks already published may get it twice.
    func start(_ batch: [OutboxMessage]) async throws -> StartedBatch {
        typealias Recipient = (index: Int, principal: Principal)  // the batch index of its message
        let tracing = batch.contains(where: \.traced)
        // What is kept of each publication once handed over: its broker and its message.
        var brokers: [String] = []
        var owners: [Int] = []  // the batch index of each publication's message
        var targets: [PushEndpoint] = []  // each publication's device, when tracing
        var parts: [PendingDelivery.Part] = []
        let expected = batch.reduce(0) { $0 + $1.recipients.count }
        brokers.reserveCapacity(expected)
        owners.reserveCapacity(expected)
        if tracing { targets.reserveCapacity(expected) }
        var chunks: [[Recipient]] = [[]]
        for (index, message) in batch.enumerated() {
            for recipient in message.recipients {
                if chunks[chunks.count - 1].count == lookupChunk { chunks.append([]) }
                chunks[chunks.count - 1].append((index, recipient.principal))
            }
        }

        // A chunk's devices, one read per app: by principal, or, for a chunk of one message's
        // recipients that is not kept (a part of a push to more principals than are kept), the
        // list the store answers, without a dictionary, since each of them gets the message.
        let keeping = expected <= devices.capacity
        let lookUp: @Sendable ([Recipient]) async throws -> ChunkDevices = { [devices] chunk in
            if !keeping, let first = chunk.first, chunk.allSatisfy({ $0.index == first.index }) {
                return .all(
                    try await devices.uncached(appID: batch[first.index].appID, principals: chunk.map(\.principal)))
            }
            var found: [LiveEndpoints.Key: [PushEndpoint]] = [:]
            for (appID, entries) in Dictionary(grouping: chunk, by: { batch[$0.index].appID }) {
                let read = try await devices.byPrincipal(
                    appID: appID, principals: entries.lazy.map(\.principal), keeping: keeping)
                found.merge(read) { kept, _ in kept }
            }
            return .byPrincipal(found)
        }
        // The first chunk is read here (a push to a few devices starts no task); each next one in
        // a task of its own while this one is published.
        var next: Task<ChunkDevices, any Error>?
        defer { next?.cancel() }
        for position in chunks.indices where !chunks[position].isEmpty {
            let found: ChunkDevices
            if let reading = next {
                found = try await reading.value
            } else {
                found = try await lookUp(chunks[position])
            }
            next =
                position + 1 < chunks.count ? Task { [chunk = chunks[position + 1]] in try await lookUp(chunk) } : nil
            let first = brokers.count
            var publications: [DevicePublication] = []  // this chunk's
            func publish(_ endpoint: PushEndpoint, of index: Int) {
                let message = batch[index]
                let broker = link.broker(serving: endpoint)
                guard !message.deliveredBrokers.contains(broker) else { return }
                publications.append(
                    DevicePublication(topic: endpoint.mqttTopic, payload: message.payload, broker: broker))
                brokers.append(broker)
                owners.append(index)
                if tracing { targets.append(endpoint) }
            }
            switch found {
            case .all(let endpoints):
                let index = chunks[position][0].index
                for endpoint in endpoints { publish(endpoint, of: index) }
            case .byPrincipal(let found):
                for (index, principal) in chunks[position] {
                    for endpoint in found[.init(batch[index].appID, principal)] ?? [] { publish(endpoint, of: index) }
                }
            }
            if !publications.isEmpty {
                parts.append(.init(offset: first, pending: link.start(publications)))
            }
        }
        return StartedBatch(
            messages: batch, brokers: brokers, owners: owners, targets: targets,
            pending: PendingDelivery(combining: parts))
    }

    /// The devices of one chunk of recipients (`start`).
    private enum ChunkDevices: Sendable {
        /// Each recipient's, by principal.
        case byPrincipal([LiveEndpoints.Key: [PushEndpoint]])
        /// All of them, for a chunk of one message's recipients.
        case all([PushEndpoint])
    }
}
