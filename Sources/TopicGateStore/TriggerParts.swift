/// The parts of a trigger a write stores, so that a change made from a copy read earlier leaves
/// the others as they are now: a firing moves its schedule on, and the firing gateway or the
/// admin disables it, while an owner's `PATCH` is on its way.
public struct TriggerParts: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Predicate, command, title, description and metadata.
    public static let definition = TriggerParts(rawValue: 1)
    /// The last evaluation and the next due time.
    public static let schedule = TriggerParts(rawValue: 2)
    /// Whether it is disabled, and why.
    public static let status = TriggerParts(rawValue: 4)
    public static let all: TriggerParts = [.definition, .schedule, .status]
}
