import MQTTBridge
import TopicGateCore

/// The gateway's links to every broker, as one `DeviceLink`: each publication goes to the
/// broker that serves its device, all brokers at once; a broker that is down holds up only
/// its own publications; revocations go to every broker.
struct BrokerFleet: DeviceLink {
    let directory: BrokerDirectory
    /// One link per broker, in the directory's order.
    let links: [BrokerLink]

    var isReady: Bool { links.contains { $0.isReady } }

    var brokerConnections: [String: Bool] {
        guard directory.spreads else { return [:] }
        return Dictionary(uniqueKeysWithValues: links.map { ($0.address.name, $0.isReady) })
    }

    func broker(serving endpoint: PushEndpoint) -> String {
        directory.broker(named: endpoint.broker).name
    }

    /// Hands every state a device publishes on any broker to `handler`.
    func receiveStates(_ handler: @escaping @Sendable (MQTTMessage) async -> Void) {
        for link in links { link.receiveStates(handler) }
    }

    func deliver(_ publications: [DevicePublication]) async -> [Int: DeliveryFailure] {
        await start(publications).failures()
    }

    /// Hands each broker its publications now; the pending outcome awaits them all.
    func start(_ publications: [DevicePublication]) -> PendingDelivery {
        guard let first = publications.first else { return .settled([:]) }
        // All for one broker (always so with one): handed over as they are, not grouped, and its
        // outcome as its link reports it, without a task that would cost a hop there and back.
        if publications.allSatisfy({ $0.broker == first.broker }) {
            return start(publications, nil, on: first.broker)
        }
        let pending = Dictionary(grouping: publications.indices, by: { publications[$0].broker }).map {
            name, indices in start(publications, indices, on: name)
        }
        return PendingDelivery(
            awaiting: {
                await withTaskGroup(of: [Int: DeliveryFailure].self) { group in
                    for broker in pending { group.addTask { await broker.failures() } }
                    var all: [Int: DeliveryFailure] = [:]
                    for await failures in group { all.merge(failures) { first, _ in first } }
                    return all
                }
            }, whenRouted: PendingDelivery.allRouted(pending.map(\.whenRouted)))
    }

    /// The publications at `indices` (nil: all), handed to broker `name`: their failures, by
    /// index.
    private func start(_ publications: [DevicePublication], _ indices: [Int]?, on name: String) -> PendingDelivery {
        guard let link = links.first(where: { $0.address.name == name }), link.isReady else {
            return .settled(
                Dictionary(
                    uniqueKeysWithValues: (indices ?? Array(publications.indices)).map { ($0, .brokerUnavailable) }))
        }
        let pending = link.start(indices.map { $0.map { publications[$0] } } ?? publications)
        return PendingDelivery(
            whenSettled: { done in
                pending.whenSettled { failures in
                    // Unacknowledged because the connection dropped: the broker is down, not stalled.
                    let down = !link.isReady
                    done(
                        Dictionary(
                            uniqueKeysWithValues: failures.map { offset, failure in
                                (
                                    indices?[offset] ?? offset,
                                    down && failure == .unacknowledged ? .brokerUnavailable : failure
                                )
                            }))
                }
            }, whenRouted: pending.whenRouted)
    }

    func revoke(_ installations: [Installation]) async {
        await withTaskGroup(of: Void.self) { group in
            for link in links { group.addTask { await link.revoke(installations) } }
        }
    }
}
