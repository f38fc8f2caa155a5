import TopicGateCore
import TopicGateStore

/// Loads the facts `AccessPolicy` needs about principals: a user's groups and owned things.
struct AccessContextLoader: Sendable {
    let store: any Store

    func context(appID: AppID, principal: Principal) async throws -> AccessContext {
        guard case .user(let id) = principal else { return AccessContext(principal: principal) }
        return try await store.accessContexts(appID: appID, users: [id])[id] ?? AccessContext(principal: principal)
    }

    /// The contexts of many subscribers at once (two queries for all the users).
    func contexts(appID: AppID, subscribers: [Subscriber]) async throws -> [Subscriber: AccessContext] {
        var users: [UserID] = []
        var result: [Subscriber: AccessContext] = [:]
        for subscriber in subscribers {
            switch subscriber {
            case .user(let id): users.append(id)
            case .thing(let id): result[subscriber] = AccessContext(principal: .thing(id))
            }
        }
        for (id, context) in try await store.accessContexts(appID: appID, users: users) {
            result[.user(id)] = context
        }
        return result
    }
}
