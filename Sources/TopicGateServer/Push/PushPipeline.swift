import Logging
import ServiceLifecycle
import TopicGateCore
import TopicGateStore

/// The way to devices, for topic sends and commands alike, with one way in (`dispatch`):
/// write → publish → acknowledge → settle → retry → dead-letter.
///
/// 1. **Write.** A message is written to the durable outbox, claimed by this gateway, before
///    `dispatch` returns (so that whoever dispatched it may answer its request: it survives a
///    crash). A message with a record of its own (a command, its results) is written with that
///    record, in one transaction; the others are written together (group commit: while one
///    transaction is synced to disk, the messages that arrive wait and go in the next, so N
///    concurrent sends cost one sync, not N).
/// 2. **Publish.** Once on disk, a message with few recipients is published by the task that
///    wrote it (no hand-over between tasks); the others go to this pipeline's own loop in
///    memory (`FreshPushes`), woken for them. The loop (`run`) also takes, from the outbox, what
///    failed, what waited for a broker and what a gateway that died left.
/// 3. **Acknowledge and settle.** The brokers' acknowledgements settle a message
///    (`DeliverySettlement`): its completion runs (a command records when it was published,
///    or fails when it had no device: `PushCompletion`) and it leaves the outbox. A failure is
///    recorded and tried again, alone; a message that keeps failing, or that the broker
///    refuses, becomes a dead letter (its command `SEND_FAILED`).
///
/// A traced message (the admin's test push) records each device's way there: pending when
/// dispatched, then what the broker made of it (`trace(of:appID:)`).
///
/// Nothing in the pipeline calls back into the services: they hand a message over and learn
/// its outcome only through the completion the message names. It owns its state: the group
/// writes, the fresh pushes, the settlement, its claims on the outbox and the traces; what has
/// no state, mapping recipients to publications and handing them to the brokers, is its
/// `PushPublisher`.
///
/// Delivery: maps each message's recipients to their live MQTT installations (at
/// delivery time, so a revoked device gets nothing), publishes the payload once to each
/// installation topic with QoS 1, and removes the message once every publication was
/// acknowledged. A message with few recipients is published by the request that wrote it
/// (`admit`, through `start`), and settled in memory when the broker acknowledged it
/// (`follow`); only an outcome that needs the store comes here (`finish`). After a
/// crash or a broker outage the outbox is delivered on recovery (at least once; payloads carry
/// `pushMessageID`).
///
/// On a store shared by several gateways each message is delivered by one of them at a time:
/// a gateway claims a batch with a lease (`outboxLease`) and only it delivers the batch while
/// the lease runs; what a gateway that died had claimed is taken by another once its lease ran
/// out.
///
/// With several brokers, each publication goes to the broker that serves its device. A broker
/// that is down holds up only its own devices: the message goes to the others, remembers which
/// brokers have it, and waits (postponed, no attempt counted) until its broker is back.
///
/// One message can never hold up the others. A message whose delivery failed is tried again
/// on its own, before the fresh ones; one that the broker would refuse (over its packet
/// limit), or that fails `deadLetterAfter` times on its own, moves to the dead letters (for
/// the admin, counted in `/metrics`) and the rest flow on.
struct PushPipeline: Service, PushDispatcher {
    let store: any OutboxStore & DeliveryTraceStore
    /// The recipients' devices, kept in memory on the embedded store.
    let devices: LiveEndpoints
    let link: any DeviceLink
    let wakeup: Wakeup
    let time: TimeSource
    let logger: Logger
    let metrics: ServerMetrics
    /// What the services that handed the messages over do once they are delivered or given up
    /// on (a command's state).
    let completion: any PushCompletion
    /// What this gateway's outbox writer hands over once on disk.
    let fresh: FreshPushes
    /// This gateway, as its outbox claims name it.
    let gatewayID: String
    /// How long a claim keeps other gateways off a message.
    let outboxLease: Duration
    /// Messages taken from the outbox at once.
    let batchSize = 200
    /// Hands batches to the brokers (`start`).
    let publisher: PushPublisher
    /// A message with at most this many recipients is published by the task that wrote it; a
    /// fan-out to more reaches its devices sooner from the loop, which publishes while the
    /// writing task answers its request.
    let publishedHereUpTo: Int
    static let fewRecipients = 8
    /// The outbox's group commit (`dispatch`).
    private let writes = GroupWrites()
    /// Failed deliveries after which a message is a dead letter.
    let deadLetterAfter = 3
    /// How long a message that waits for a broker that is down is left alone.
    let brokerRetry: Duration = .seconds(1)
    /// Which devices are connected: a traced push records, per device, whether the broker
    /// acknowledged it while the device was online.
    let presence: DevicePresence?
    /// Where delivered messages are settled (completed, removed from the outbox) off the
    /// delivery path; it runs as a service of its own (`services`).
    let settlement: DeliverySettlement

    init(
        store: any OutboxStore & DeliveryTraceStore, devices: LiveEndpoints, link: any DeviceLink, wakeup: Wakeup,
        time: TimeSource, logger: Logger, metrics: ServerMetrics, completion: any PushCompletion,
        fresh: FreshPushes = FreshPushes(), gatewayID: String = GatewayIdentity.generated(),
        outboxLease: Duration = .seconds(30), presence: DevicePresence? = nil, lookupChunk: Int = 2_000,
        publishedHereUpTo: Int = PushPipeline.fewRecipients
    ) {
        self.publishedHereUpTo = publishedHereUpTo
        publisher = PushPublisher(devices: devices, link: link, lookupChunk: max(1, lookupChunk))
        self.store = store
        self.devices = devices
        self.link = link
        self.wakeup = wakeup
        self.time = time
        self.logger = logger
        self.metrics = metrics
        self.completion = completion
        self.fresh = fresh
        self.gatewayID = gatewayID
        self.outboxLease = outboxLease
        self.presence = presence
        settlement = DeliverySettlement(
            store: store, completion: completion, fresh: fresh, time: time, logger: logger,
            redeliver: { [wakeup] in wakeup.signal() })
    }

    /// What runs for the pipeline: the settlement before the loop, so that it is stopped after
    /// it and settles what the last deliveries left.
    var services: [any Service] { [settlement, self] }

    func dispatch(_ message: OutboxMessage, storing record: ((QueuedPush?) async throws -> Void)?) async throws {
        guard !message.recipients.isEmpty else {
            try await record?(nil)
            return
        }
        if message.traced { try await beginTrace(message) }
        guard let record else {
            return try await writes.add(message, writingWith: writeFresh, thenPublishing: publishWritten)
        }
        try await admit([message]) { claim in
            try await record(QueuedPush(message: message, claim: claim))
        }
    }

    /// Writes fresh `messages` in one transaction, reserved among the fresh pushes (`admit`'s
    /// first half, for the group writes).
    @Sendable private func writeFresh(_ messages: [OutboxMessage]) async throws {
        try await reserveAndWrite(messages) { claim in
            try await store.enqueue(messages, claim: claim)
        }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            // The outbox is read at start, after a failure, and at least once a second (for
            // retries, postponed messages and what a gateway that died left); fresh pushes
            // come from memory in between.
            var outboxDue = ContinuousClock.now
            while !Task.isCancelled {
                let outcome = await deliverBatch(checkingOutbox: ContinuousClock.now >= outboxDue)
                switch outcome {
                case .more: continue
                case .idle, .handed:
                    if outcome == .idle { outboxDue = .now + .seconds(1) }
                    await wakeup.wait()
                case .failed:
                    outboxDue = .now
                    await wakeup.wait()
                }
            }
        }
    }

    /// `handed`: nothing waits in memory and the outbox was not read.
    enum Outcome { case more, idle, handed, failed }

    /// Records the outcome of what a request published itself, or delivers what this gateway
    /// accepted last, from memory, or else the oldest batch of the outbox: a message that
    /// failed before goes alone.
    func deliverBatch(checkingOutbox: Bool = true) async -> Outcome {
        do {
            // Published by the request that wrote them, with an outcome that needs the store (a
            // failure, a trace): recorded first (also when the broker went down since).
            if let started = fresh.takeStarted() {
                defer { release(started.messages) }
                return try await finish(started, alone: false) ? .more : .failed
            }
            guard link.isReady else { return .failed }
            let handed = fresh.take(limit: batchSize)
            if !handed.isEmpty {
                defer { release(handed) }
                return try await deliver(handed, alone: false) ? .more : .failed
            }
            guard checkingOutbox else { return .handed }
            let now = time.now()
            var claimed = 0
            let pending = try await fresh.claim {
                let messages = try await store.claimMessages(
                    gateway: gatewayID, limit: batchSize, now: now, leaseUntil: now + outboxLease)
                claimed = messages.count
                return messages
            }
            // All reserved (being delivered from memory, or waiting for their settlement): the
            // outbox is read again within a second.
            guard !pending.isEmpty else { return .idle }
            if let suspect = pending.first(where: { $0.attempts > 0 }) {
                return try await deliver([suspect], alone: true) ? .more : .failed
            }
            guard try await deliver(pending, alone: false) else { return .failed }
            return claimed == batchSize ? .more : .idle
        } catch {
            logger.error("Push delivery failed", metadata: ["error": "\(error)"])
            return .failed
        }
    }

    /// Releases messages taken from memory once they are settled either way: recorded in the
    /// outbox for another try, or delivered (those waiting for their settlement to be written
    /// are released by `DeliverySettlement` then).
    private func release(_ messages: [OutboxMessage]) {
        fresh.release(messages.map(\.id).filter { !settlement.holds($0) })
    }

    /// Publishes `batch` and settles each message: delivered ones leave the outbox, refused
    /// ones become dead letters, failed ones count an attempt (and, tried `alone` for the
    /// last allowed time, become dead letters), and those that wait only for a broker that is
    /// down are postponed without one. A message remembers the brokers that have it, so a
    /// retry goes only to the others. True unless a publication failed on a connected broker.
    private func deliver(_ batch: [OutboxMessage], alone: Bool) async throws -> Bool {
        try await finish(try await start(batch), alone: alone)
    }

    /// Hands `batch` to the brokers, without waiting for the acknowledgements (`PushPublisher`).
    func start(_ batch: [OutboxMessage]) async throws -> StartedBatch { try await publisher.start(batch) }

    /// Awaits the outcome of `started` and settles each message (see `deliver`).
    func finish(_ started: StartedBatch, alone: Bool) async throws -> Bool {
        let (batch, brokers, owners, targets) = (started.messages, started.brokers, started.owners, started.targets)
        let failures = await started.pending.failures()
        // What a broker that was down never had is not a publication.
        metrics.pushes(
            owners.indices.compactMap { index in
                let failure = failures[index]
                if failure == .brokerUnavailable { return nil }
                return (batch[owners[index]].appID, failure == nil)
            })
        var refused: [Int: String] = [:]
        var failed: Set<Int> = []
        var waiting: Set<Int> = []
        var tried: [Int: Set<String>] = [:]  // by message: the brokers it was published on
        var unfinished: [Int: Set<String>] = [:]  // by message: those that do not have it yet
        var acknowledged: Set<Int> = []  // messages the broker acknowledged for at least one device
        for (publication, index) in owners.enumerated() {
            tried[index, default: []].insert(brokers[publication])
            switch failures[publication] {
            case nil: acknowledged.insert(index)
            case .refused(let reason): refused[index] = reason
            case .unacknowledged: failed.insert(index)
            case .brokerUnavailable: waiting.insert(index)
            }
            if failures[publication] != nil { unfinished[index, default: []].insert(brokers[publication]) }
        }
        failed.subtract(refused.keys)
        waiting.subtract(failed.union(refused.keys))
        let now = time.now()
        if batch.contains(where: \.traced) {
            try await trace(batch, owners: owners, targets: targets, failures: failures, giveUp: alone, at: now)
        }
        for (index, reason) in refused {
            try await deadLetter(batch[index], reason: "refused: \(reason)", at: now)
        }
        // What each unfinished message's brokers have now, so that a retry skips them.
        for index in failed.union(waiting) {
            let finished = (tried[index] ?? []).subtracting(unfinished[index] ?? [])
            if !finished.isEmpty {
                try await store.recordProgress(
                    id: batch[index].id, deliveredBrokers: batch[index].deliveredBrokers.union(finished))
            }
        }
        let delivered = batch.indices.filter { !failed.contains($0) && !waiting.contains($0) && refused[$0] == nil }
        try await store.postponeMessages(ids: waiting.map { batch[$0].id }, until: now + brokerRetry)
        let commands = SettledCommands(
            of: batch, settled: delivered, publishedTo: acknowledged.subtracting(refused.keys))
        settlement.settle(
            messages: delivered.map { batch[$0].id }, commands: commands, once: started.pending.whenRouted)
        guard failed.isEmpty else {
            let giveUp = failed.filter { alone && batch[$0].attempts + 1 >= deadLetterAfter }
            try await store.recordFailedAttempt(ids: failed.subtracting(giveUp).map { batch[$0].id })
            for index in giveUp {
                let attempts = batch[index].attempts + 1
                try await deadLetter(
                    batch[index], reason: "not acknowledged by the broker after \(attempts) attempts", at: now)
            }
            let retrying = failed.count - giveUp.count
            if retrying > 0 {
                logger.warning(
                    "Some pushes were not acknowledged; retrying them one by one", metadata: ["messages": "\(retrying)"]
                )
            }
            return retrying == 0
        }
        return true
    }

    /// Leaves the outcome of a batch its request published (`start`) to the brokers' answers.
    /// On the thread that receives the last of them, a batch whose every publication was
    /// acknowledged and that nothing traces is settled in memory (`DeliverySettlement`) and
    /// released; anything else (a failure, a trace to write) is handed to the
    /// delivery task, woken for it, which records it with `finish`. A push then wakes no task of
    /// the gateway's after its request.
    func follow(_ started: StartedBatch) {
        fresh.follow()
        started.pending.whenSettled { [self] failures in
            fresh.followed()
            guard failures.isEmpty, !started.messages.contains(where: \.traced) else {
                fresh.handOver(
                    StartedBatch(
                        messages: started.messages, brokers: started.brokers, owners: started.owners,
                        targets: started.targets,
                        pending: .settled(failures, whenRouted: started.pending.whenRouted)))
                wakeup.signal()
                return
            }
            metrics.pushes(started.owners.map { (started.messages[$0].appID, true) })
            settlement.settle(
                messages: started.messages.map(\.id),
                commands: SettledCommands(
                    of: started.messages, settled: started.messages.indices, publishedTo: Set(started.owners)),
                once: started.pending.whenRouted)
            release(started.messages)
        }
    }

    /// Admits fresh `messages`: reserves them among the fresh pushes, runs `write` with this
    /// gateway's claim on them (its ID and the lease's end), then publishes those with at most
    /// `publishedHereUpTo` recipients on the caller's task (when the broker is connected and
    /// not too many published batches wait for their outcome), leaving their outcome to the
    /// brokers' answers (`follow`), and hands the others to this service's loop, waking it;
    /// releases them all when the write fails.
    func admit(
        _ messages: [OutboxMessage], _ write: (OutboxClaim) async throws -> Void
    ) async throws {
        try await reserveAndWrite(messages, write)
        await publishWritten(messages)
    }

    /// Reserves `messages` among the fresh pushes and runs `write` with this gateway's claim on
    /// them; releases them when it fails.
    private func reserveAndWrite(
        _ messages: [OutboxMessage], _ write: (OutboxClaim) async throws -> Void
    ) async throws {
        fresh.reserve(messages)
        do {
            try await write(OutboxClaim(gateway: gatewayID, leaseUntil: time.now() + outboxLease))
        } catch {
            fresh.release(messages.map(\.id))
            throw error
        }
    }

    /// Publishes the written `messages` with few recipients here, or hands them to the loop
    /// (`admit`'s second half; the group writes' publication).
    @Sendable private func publishWritten(_ messages: [OutboxMessage]) async {
        let publishedHere = { (message: OutboxMessage) in message.recipients.count <= publishedHereUpTo }
        let here = messages.filter(publishedHere)
        if !here.isEmpty, link.isReady, fresh.mayStart, let started = try? await start(here) {
            follow(started)
            let others = messages.filter { !publishedHere($0) }
            guard !others.isEmpty else { return }
            fresh.handOver(others)
        } else {
            fresh.handOver(messages)
        }
        wakeup.signal()
    }

    /// Starts the trace of `message` (the admin's test push): every MQTT device of its
    /// recipients, pending, before the message is written; `trace` records what each becomes.
    func beginTrace(_ message: OutboxMessage) async throws {
        let endpoints = try await devices.uncached(
            appID: message.appID, principals: message.recipients.map(\.principal))
        let now = time.now()
        try await store.recordDeliveries(
            endpoints.map {
                DeviceDelivery(messageID: message.id, appID: message.appID, endpoint: $0, state: .pending, at: now)
            }, replacing: false)
    }

    /// How far a traced message got toward each device.
    func trace(of messageID: PushMessageID, appID: AppID) async throws -> [DeviceDelivery] {
        try await store.deliveries(appID: appID, messageID: messageID)
    }

    /// Records each device's outcome of the traced messages in `batch`: acknowledged while the
    /// device was online or offline, refused, or pending (to be tried again; failed when this
    /// was the last try of a message tried alone).
    private func trace(
        _ batch: [OutboxMessage], owners: [Int], targets: [PushEndpoint],
        failures: [Int: DeliveryFailure], giveUp alone: Bool, at now: UnixMillis
    ) async throws {
        var records: [DeviceDelivery] = []
        for (publication, index) in owners.enumerated() where batch[index].traced {
            let message = batch[index]
            let device = targets[publication]
            let (state, detail): (DeliveryState, String?)
            switch failures[publication] {
            case nil:
                (state, detail) = (presence?.status(device.mqttTopic).online == true ? .acknowledged : .offline, nil)
            case .refused(let reason): (state, detail) = (.failed, "refused by the broker: \(reason)")
            case .unacknowledged:
                (state, detail) =
                    alone && message.attempts + 1 >= deadLetterAfter
                    ? (.failed, "not acknowledged by the broker after \(message.attempts + 1) attempts")
                    : (.pending, "not acknowledged by the broker; tried again")
            case .brokerUnavailable: (state, detail) = (.pending, "its broker is down; waiting for it")
            }
            records.append(
                DeviceDelivery(
                    messageID: message.id, appID: message.appID, endpoint: device, state: state, detail: detail,
                    at: now))
        }
        try await store.recordDeliveries(records, replacing: true)
    }

    /// Gives up on `message`: its completion fails (a command becomes `SEND_FAILED`), then it
    /// moves to the dead letters.
    private func deadLetter(_ message: OutboxMessage, reason: String, at now: UnixMillis) async throws {
        if let command = message.commandID {
            try await completion.failed([message.appID: [command]], at: now)
        }
        try await store.deadLetter(ids: [message.id], reason: reason, at: now)
        metrics.deadLettered(appID: message.appID)
        logger.error(
            "Push moved to the dead letters",
            metadata: ["pushMessageID": "\(message.id)", "appID": "\(message.appID)", "reason": "\(reason)"])
    }
}
