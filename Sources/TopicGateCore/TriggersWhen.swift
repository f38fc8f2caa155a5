/// When a STATES trigger fires, comparing its condition on the previous state with the new one
/// (Thing-IF's `triggersWhen`).
public enum TriggersWhen: String, Sendable, Hashable, CaseIterable {
    /// Whenever a new state satisfies the condition.
    case conditionTrue = "CONDITION_TRUE"
    /// When the previous state did not satisfy it and the new one does.
    case conditionFalseToTrue = "CONDITION_FALSE_TO_TRUE"
    /// When the previous and the new state differ in satisfying it.
    case conditionChanged = "CONDITION_CHANGED"

    /// Whether a new state whose evaluation is `now` fires, after `previous` (false before any).
    public func fires(previous: Bool, now: Bool) -> Bool {
        switch self {
        case .conditionTrue: now
        case .conditionFalseToTrue: !previous && now
        case .conditionChanged: previous != now
        }
    }
}
