import Logging
import ServiceLifecycle
import TopicGateCore
import TopicGateStore

/// Empties the outbox: maps each message's recipients to their live MQTT installations (at
/// delivery time, so a revoked device gets nothing), publishes the payload once to each
/// installation topic with QoS 1, and removes the message once every publication was
/// acknowledged. What fails stays and is tried again; after a crash or a broker outage the
/// outbox is delivered on recovery (at least once; payloads carry `pushMessageID`).
struct PushDeliveryService: Service {
    let store: any Store
    let link: any DeviceLink
    let wakeup: Wakeup
    let time: TimeSource
    let logger: Logger
    let metrics: ServerMetrics
    /// Messages taken from the outbox at once.
    var batchSize = 200

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                switch await deliverBatch() {
                case .more: continue
                case .idle: await wakeup.wait(upTo: .seconds(1))
                case .failed: await wakeup.wait(upTo: .seconds(1))
                }
            }
        }
    }

    enum Outcome { case more, idle, failed }

    /// Delivers the oldest batch of the outbox.
    func deliverBatch() async -> Outcome {
        guard link.isReady else { return .failed }
        do {
            let batch = try await store.pendingMessages(limit: batchSize)
            guard !batch.isEmpty else { return .idle }
            // The live MQTT installations of every recipient of the batch, one read per app.
            var devices: [String: [Installation]] = [:]
            for (appID, messages) in Dictionary(grouping: batch, by: \.appID) {
                let principals = Array(Set(messages.flatMap { $0.recipients.map(\.principal) }))
                for installation in try await store.liveInstallations(appID: appID, principals: principals)
                where installation.deviceType == "MQTT" {
                    devices[appID.rawValue + "\n" + installation.principal.description, default: []].append(installation)
                }
            }
            var publications: [DevicePublication] = []
            var owners: [Int] = []  // the batch index of each publication's message
            for (index, message) in batch.enumerated() {
                for recipient in message.recipients {
                    for installation in devices[message.appID.rawValue + "\n" + recipient.principal.description] ?? [] {
                        publications.append(DevicePublication(topic: installation.mqttTopic, payload: message.payload))
                        owners.append(index)
                    }
                }
            }
            let unacknowledged = await link.deliver(publications)
            metrics.pushes(published: publications.count, failed: unacknowledged.count)
            let failed = Set(unacknowledged.map { owners[$0] })
            let delivered = batch.indices.filter { !failed.contains($0) }
            try await store.completeMessages(ids: delivered.map { batch[$0].id })
            // A command is DELIVERED once the broker acknowledged it for one of its thing's
            // installations (a thing with none keeps it SENDING).
            let published = Set(owners)
            for (appID, indices) in Dictionary(grouping: delivered.filter { published.contains($0) }, by: { batch[$0].appID }) {
                let commands = indices.compactMap { batch[$0].commandID }
                if !commands.isEmpty { try await store.markDelivered(appID: appID, ids: commands, at: time.now()) }
            }
            if !failed.isEmpty {
                logger.warning("Some pushes were not acknowledged; retrying", metadata: ["messages": "\(failed.count)"])
                return .failed
            }
            return batch.count == batchSize ? .more : .idle
        } catch {
            logger.error("Push delivery failed", metadata: ["error": "\(error)"])
            return .failed
        }
    }
}
