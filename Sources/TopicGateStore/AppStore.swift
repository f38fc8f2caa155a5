public import TopicGateCore

/// Apps: created on first start and by `topicgate apps create`.
public protocol AppStore: Sendable {
    func insertApp(_ app: App) async throws
    func app(id: AppID) async throws -> App?
    func app(clientID: String) async throws -> App?
    func apps() async throws -> [App]
    func updateApp(_ app: App) async throws
}
