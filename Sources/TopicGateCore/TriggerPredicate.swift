/// What makes a trigger fire (Thing-IF's `predicate`):
/// - `{"eventSource":"STATES","condition":<TriggerClause>,"triggersWhen":<TriggersWhen>}`;
/// - `{"eventSource":"SCHEDULE","schedule":"<cron>"}` (`CronSchedule`, UTC);
/// - `{"eventSource":"SCHEDULE_ONCE","scheduleAt":<ms>}` (UTC).
/// Anything else is `400 WRONG_PREDICATE`. The predicate is answered as it was sent.
public struct TriggerPredicate: Sendable, Hashable {
    public enum Rule: Sendable, Hashable {
        case states(TriggerClause, TriggersWhen)
        case schedule(CronSchedule)
        case scheduleOnce(UnixMillis)
    }

    public let rule: Rule
    /// As sent (checked), for answers.
    public let json: JSONValue

    public init(json: JSONValue) throws(KiiError) {
        guard let object = json.objectValue, let source = object["eventSource"]?.stringValue else {
            throw Self.wrong("A predicate is an object with an 'eventSource': STATES, SCHEDULE or SCHEDULE_ONCE.")
        }
        switch source {
        case "STATES":
            guard let condition = object["condition"] else { throw Self.wrong("A STATES predicate has a 'condition'.") }
            guard let name = object["triggersWhen"]?.stringValue, let when = TriggersWhen(rawValue: name) else {
                throw Self.wrong(
                    "A STATES predicate has a 'triggersWhen': CONDITION_TRUE, CONDITION_FALSE_TO_TRUE or "
                        + "CONDITION_CHANGED.")
            }
            rule = .states(try TriggerClause(json: condition), when)
        case "SCHEDULE":
            guard let cron = object["schedule"]?.stringValue else {
                throw KiiError(
                    .wrongPredicate, "Value for 'schedule' field is incorrect", context: ["field": "schedule"])
            }
            let schedule = try CronSchedule(cron)
            guard schedule.next(after: UnixMillis(0)) != nil else {
                throw KiiError(
                    .wrongPredicate, "Value for 'schedule' field is incorrect", context: ["field": "schedule"])
            }
            rule = .schedule(schedule)
        case "SCHEDULE_ONCE":
            guard let at = object["scheduleAt"]?.intValue, at > 0 else {
                throw Self.wrong("A SCHEDULE_ONCE predicate has a 'scheduleAt' (UNIX time in ms).")
            }
            rule = .scheduleOnce(UnixMillis(at))
        default:
            throw Self.wrong("Unknown eventSource '\(source)': STATES, SCHEDULE or SCHEDULE_ONCE.")
        }
        self.json = json
    }

    static func wrong(_ message: String) -> KiiError { KiiError(.wrongPredicate, message) }

    /// True for SCHEDULE and SCHEDULE_ONCE: the app decides who may create them
    /// (`allowCreateTaskByPrincipal`).
    public var isTimed: Bool {
        if case .states = rule { return false }
        return true
    }

    /// When a timed trigger is next due after `now` (nil: never again, or a STATES trigger). A
    /// SCHEDULE_ONCE time already past is due at once.
    public func nextDue(after now: UnixMillis) -> UnixMillis? {
        switch rule {
        case .states: nil
        case .schedule(let cron): cron.next(after: now)
        case .scheduleOnce(let at): at
        }
    }
}
