public import TopicGateCore

/// What things report as their state: the latest, and a history kept for a retention period.
/// Deleting a thing deletes its states.
public protocol ThingStateStore: Sendable {
    /// Stores `record` and drops this thing's states older than `keepSince` (ms), and all but
    /// its newest `keepAtMost`.
    func recordState(appID: AppID, thing: ThingID, _ record: ThingStateRecord, keepSince: Int64, keepAtMost: Int)
        async throws
    /// The state recorded last in time (of two at one millisecond, the one written last).
    func latestState(appID: AppID, thing: ThingID) async throws -> ThingStateRecord?
    /// States recorded in `from...to` (ms), oldest first, at most `limit` and, past the first,
    /// no more than `maximumBytes` of stored JSON; `complete` is false when a limit cut the page.
    func stateHistory(appID: AppID, thing: ThingID, from: Int64, to: Int64, limit: Int, maximumBytes: Int) async throws
        -> (states: [ThingStateRecord], complete: Bool)
}
