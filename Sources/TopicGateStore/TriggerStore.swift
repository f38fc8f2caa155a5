public import TopicGateCore

/// Thing-IF triggers, and the per-app configuration parameters that decide who may create timed
/// ones. Deleting a thing deletes its triggers. A trigger fires through `fireTrigger`, which
/// moves it on and stores the command it sends in one transaction, only while it is as the
/// firing gateway saw it: with several gateways on one database, a state fires a trigger once and
/// a schedule fires once per due time.
public protocol TriggerStore: Sendable {
    func insertTrigger(_ trigger: Trigger) async throws
    func trigger(appID: AppID, id: TriggerID) async throws -> Trigger?
    /// A page of the thing's triggers in ID order, after the page key `after`; the next page's
    /// key when there is more.
    func triggers(appID: AppID, thing: ThingID, limit: Int, after: String?) async throws
        -> (triggers: [Trigger], next: String?)
    func triggerCount(appID: AppID, thing: ThingID) async throws -> Int
    /// Stores `parts` of `trigger` (and its modification time) over the one with its app and ID,
    /// leaving its other parts as they are; false when there is none.
    func updateTrigger(_ trigger: Trigger, parts: TriggerParts) async throws -> Bool
    func deleteTrigger(appID: AppID, id: TriggerID) async throws -> Bool
    /// The thing's enabled STATES triggers.
    func stateTriggers(appID: AppID, thing: ThingID) async throws -> [Trigger]
    /// Enabled timed triggers of every app due at `now`, the longest due first, at most `limit`.
    func dueTriggers(now: UnixMillis, limit: Int) async throws -> [Trigger]
    /// Records that a state satisfied none of these STATES triggers: their last evaluation
    /// becomes false (a write only for those whose last one was true).
    func clearMatches(appID: AppID, ids: [TriggerID]) async throws
    /// Fires the trigger if it is still enabled and as `firing` expects, storing `command` and,
    /// in the same transaction, its push; false when it was not (another gateway fired it first,
    /// or it was changed or disabled).
    func fireTrigger(_ firing: TriggerFiring, command: Command, queueing push: QueuedPush?) async throws -> Bool
    /// Disables the trigger, saying why.
    func disableTrigger(appID: AppID, id: TriggerID, reason: String, at now: UnixMillis) async throws
    /// An app's configuration parameter (`allowCreateTaskByPrincipal`), nil when never set.
    func appParameter(appID: AppID, name: String) async throws -> String?
    func setAppParameter(appID: AppID, name: String, value: String) async throws
}
