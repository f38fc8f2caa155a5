public import TopicGateCore

/// The append-only security audit trail of each app.
public protocol SecurityAuditStore: Sendable {
    func appendSecurityEvent(_ event: SecurityEvent) async throws
    /// The app's latest events, newest first, at most `limit`; with `before`, only events
    /// older than that sequence number (for paging). Each comes with its sequence number.
    func securityEvents(appID: AppID, limit: Int, before: Int64?) async throws -> [(
        sequence: Int64, event: SecurityEvent
    )]
}
