public import TopicGateCore

/// What things report as their state: the latest, and a history kept for a retention period;
/// a trait thing's states are kept per trait alias. Deleting a thing deletes its states.
public protocol ThingStateStore: Sendable {
    /// Stores `records` together (a report of several trait aliases is several records) and drops
    /// this thing's states older than `keepSince` (ms), and all but its newest `keepAtMost`; the
    /// latest state of each alias (and the latest plain state) is always kept.
    func recordState(
        appID: AppID, thing: ThingID, _ records: [ThingStateRecord], keepSince: UnixMillis, keepAtMost: Int)
        async throws
    /// The state recorded last in time (of two at one millisecond, the one written last).
    func latestState(appID: AppID, thing: ThingID) async throws -> ThingStateRecord?
    /// The latest state of each alias (a nil alias: the latest plain state), newest first.
    func latestStates(appID: AppID, thing: ThingID) async throws -> [ThingStateRecord]
    /// States recorded in `from...to` (ms), oldest first, of `alias` only when given, at most
    /// `limit` and, past the first, no more than `maximumBytes` of stored JSON; `complete` is
    /// false when a limit cut the page.
    func stateHistory(
        appID: AppID, thing: ThingID, alias: String?, from: UnixMillis, to: UnixMillis, limit: Int, maximumBytes: Int
    ) async throws -> (states: [ThingStateRecord], complete: Bool)
    /// The states of `alias` recorded in `from...to`, in their history's order (`StatePosition`),
    /// after `position` when given, at most `limit`, each with its position: read along an index
    /// of the thing's alias and time, so a page costs its own states whatever the history holds.
    func aliasStates(
        appID: AppID, thing: ThingID, alias: String, from: UnixMillis, to: UnixMillis, after position: StatePosition?,
        limit: Int
    ) async throws -> [(position: StatePosition, record: ThingStateRecord)]
}
