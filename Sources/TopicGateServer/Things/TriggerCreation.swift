/// `201` to a new trigger.
struct TriggerCreation: Encodable, Sendable {
    let triggerID: String
}
