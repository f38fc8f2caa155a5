import Synchronization
import TopicGateCore

/// Topics with their ACL entries, kept in memory so that a decision on the send path needs no
/// database round trip once a topic is loaded. Every change made through this process
/// invalidates its key before the change's response is sent, so a decision is never made on
/// entries older than the last change that returned.
final class TopicCache: Sendable {
    struct Key: Hashable {
        let appID: AppID
        let address: TopicAddress
    }

    private let topics = Mutex<[Key: (Topic, [ACLEntry])]>([:])
    /// At most this many topics are kept; past it the cache starts over.
    let capacity: Int

    init(capacity: Int = 100_000) { self.capacity = capacity }

    func get(_ appID: AppID, _ address: TopicAddress) -> (Topic, [ACLEntry])? {
        topics.withLock { $0[Key(appID: appID, address: address)] }
    }

    func put(_ appID: AppID, _ address: TopicAddress, _ value: (Topic, [ACLEntry])) {
        topics.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[Key(appID: appID, address: address)] = value
        }
    }

    func invalidate(_ appID: AppID, _ address: TopicAddress) {
        _ = topics.withLock { $0.removeValue(forKey: Key(appID: appID, address: address)) }
    }

    /// Forgets everything: after a user, group or thing is deleted, which deletes its topics
    /// and every entry naming it.
    func invalidateAll() {
        topics.withLock { $0.removeAll() }
    }
}
