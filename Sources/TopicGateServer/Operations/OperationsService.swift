import TopicGateCore
import TopicGateStore

/// What operators read of an app (admin only, checked by the controller): its counts, its
/// outbox, its dead letters and its security audit trail; and whether the database answers.
struct OperationsService: Sendable {
    /// An app's figures for its overview.
    struct Overview: Sendable {
        let counts: AppCounts
        let outboxDepth: Int
        let deadLetters: Int
    }

    let store: any AppStore & OperatorStore & OutboxStore & SecurityAuditStore

    func overview(appID: AppID) async throws -> Overview {
        Overview(
            counts: try await store.appCounts(appID: appID),
            outboxDepth: try await store.pendingMessageCount(appID: appID),
            deadLetters: try await store.deadLetterCount(appID: appID))
    }

    /// A page of the app's security events, newest first, before the sequence `before`.
    func securityEvents(appID: AppID, limit: Int, before: Int64?) async throws -> [(
        sequence: Int64, event: SecurityEvent
    )] {
        try await store.securityEvents(appID: appID, limit: limit, before: before)
    }

    /// A page of the app's dead letters, newest first, before the sequence `before`.
    func deadLetters(appID: AppID, limit: Int, before: Int64?) async throws -> [(sequence: Int64, letter: DeadLetter)] {
        try await store.deadLetters(appID: appID, limit: limit, before: before)
    }

    /// True when the database answers a read.
    func databaseAnswers() async -> Bool {
        (try? await store.apps()) != nil
    }
}
