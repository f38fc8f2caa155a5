import TopicGateCore

/// A topic as the principals pages name it: its scope and ID, and what the page says of it
/// (the rule that lets the principal use it, or the actions an ACL grants a group).
struct TopicMention: Encodable, Sendable {
    let scope: String
    let topicID: String
    var rule: String?
    var reason: String?
    var actions: [String]?

    init(_ topic: Topic) {
        scope = topic.scope.description
        topicID = topic.name.rawValue
    }

    /// A topic the principal may use, and the rule that lets it.
    init(_ topic: Topic, _ decision: AccessDecision) {
        self.init(topic)
        rule = decision.reasonCode
        reason = decision.description
    }

    /// A topic whose ACL names a group for `actions`.
    init(_ topic: Topic, actions: [ACLAction]) {
        self.init(topic)
        self.actions = actions.map(\.rawValue)
    }
}
