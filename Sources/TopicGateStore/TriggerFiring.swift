public import TopicGateCore

/// What a gateway saw when it decided that a trigger fires (`TriggerStore.fireTrigger`): it fires
/// only if the trigger is still so.
public struct TriggerFiring: Sendable, Hashable {
    public enum Condition: Sendable, Hashable {
        /// A state satisfied a CONDITION_TRUE trigger: every such state fires it.
        case satisfied
        /// A state moved the trigger's evaluation from `from` to `to` (no evaluation yet counts as
        /// false).
        case moved(from: Bool, to: Bool)
        /// A timed trigger due at `at`, due next at `next` (nil: never again).
        case due(at: UnixMillis, next: UnixMillis?)
    }

    public var appID: AppID
    public var id: TriggerID
    public var condition: Condition

    public init(appID: AppID, id: TriggerID, condition: Condition) {
        self.appID = appID
        self.id = id
        self.condition = condition
    }
}
