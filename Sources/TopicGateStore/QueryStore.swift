public import TopicGateCore

/// Kii's user and thing queries (`QuerySQL` turns their clauses into the engine's SQL): a page
/// of the app's matches in the query's order, and whether more follow.
public protocol QueryStore: Sendable {
    func queryUsers(appID: AppID, _ request: QueryRequest) async throws -> (users: [User], more: Bool)
    func queryThings(appID: AppID, _ request: QueryRequest) async throws -> (things: [Thing], more: Bool)
}
