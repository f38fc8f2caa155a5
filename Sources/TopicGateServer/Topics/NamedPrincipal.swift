import TopicGateCore

/// A principal as operators read it in a topic's answers: `principal`, its `name` when it has
/// one, and why it was listed (the rule that admits it, or whether a subscriber still
/// receives sends).
struct NamedPrincipal: Encodable, Sendable {
    let principal: String
    let name: String?
    var rule: String?
    var reason: String?
    var receives: Bool?

    init(_ principal: Principal, names: [Principal: String]) {
        self.principal = principal.description
        name = names[principal]
    }

    /// A subscriber, and whether it still receives sends.
    init(_ subscriber: Subscriber, receives: Bool, names: [Principal: String]) {
        self.init(subscriber.principal, names: names)
        self.receives = receives
    }

    /// The principal a decision is about, with the rule that decided.
    init(_ decision: AccessDecision, names: [Principal: String]) {
        self.init(decision.principal, names: names)
        rule = decision.reasonCode
        reason = decision.description
    }
}
