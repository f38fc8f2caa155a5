import TopicGateCore

/// `GET …/acl-explain`: whether a principal may act on a topic, and the rule that decided.
struct ACLExplanation: Encodable, Sendable {
    let topic: String
    let principal: String
    let action: String
    let allowed: Bool
    let rule: String
    let reason: String

    init(topic: Topic, principal: Principal, action: ACLAction, decision: AccessDecision) {
        self.topic = topic.address.description
        self.principal = principal.description
        self.action = action.rawValue
        allowed = decision.allowed
        rule = decision.reasonCode
        reason = decision.description
    }
}
