/// When a STATES trigger fires, comparing its condition on the previous state with the new one
/// (Thing-IF's `triggersWhen`).
public enum TriggersWhen: String, Sendable, Hashable, CaseIterable {
    /// Whenever a new state satisfies the condition.
    case conditionTrue = "CONDITION_TRUE"
    /// When the previous state did not satisfy it and the new one does.
    case conditionFalseToTrue = "CONDITION_FALSE_TO_TRUE"
    /// When the previous and the new state differ in satisfying it.
    case conditionChanged = "CONDITION_CHANGED"

    /// What a new state whose evaluation is `now` needs of the previous evaluation to fire.
    public enum Requirement: Sendable, Hashable {
        /// Nothing: it fires.
        case none
        /// That the previous evaluation was this (none yet counts as false).
        case previous(Bool)
    }

    /// What firing on a state whose evaluation is `now` requires; nil when it cannot fire.
    public func requirement(now: Bool) -> Requirement? {
        switch self {
        case .conditionTrue: now ? Requirement.none : nil
        case .conditionFalseToTrue: now ? .previous(false) : nil
        case .conditionChanged: .previous(!now)
        }
    }

    /// Whether a new state whose evaluation is `now` fires, after `previous` (false before any).
    public func fires(previous: Bool, now: Bool) -> Bool {
        switch requirement(now: now) {
        case nil: false
        case .none?: true
        case .previous(let required)?: required == previous
        }
    }
}
