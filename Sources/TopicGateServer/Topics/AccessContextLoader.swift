import TopicGateCore
import TopicGateStore

/// Loads the facts `AccessPolicy` needs about principals: a user's groups and owned things.
struct AccessContextLoader: Sendable {
    let store: any Store

    func context(appID: AppID, principal: Principal) async throws -> AccessContext {
        guard case .user(let id) = principal else { return AccessContext(principal: principal) }
        return try await store.accessContexts(appID: appID, users: [id])[id] ?? AccessContext(principal: principal)
    }
}
