import Synchronization
import TopicGateServer

/// A dispatcher that records the fan-out it would do (the last `capacity` deliveries) and
/// delivers nothing: what the router tests inspect.
public final class RecordingPushDispatcher: PushDispatcher {
    private let recorded = Mutex<[PushDelivery]>([])
    public let capacity: Int

    public init(capacity: Int = 1000) { self.capacity = capacity }

    public func dispatch(_ delivery: PushDelivery) async throws {
        recorded.withLock { deliveries in
            deliveries.append(delivery)
            if deliveries.count > capacity { deliveries.removeFirst(deliveries.count - capacity) }
        }
    }

    /// The recorded deliveries, oldest first.
    public var deliveries: [PushDelivery] { recorded.withLock { $0 } }
}
