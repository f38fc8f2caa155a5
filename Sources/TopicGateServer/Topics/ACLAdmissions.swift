import TopicGateCore

/// `GET …/acl-who-can`: who may subscribe to or send on a topic: the admin always, everyone
/// when an entry admits any authenticated user or anonymous callers, and the principals the
/// entries name, each with the rule that admits it.
struct ACLAdmissions: Encodable, Sendable {
    let action: String
    let admin = true
    let anyAuthenticatedUser: Bool
    let anonymous: Bool
    let principals: [NamedPrincipal]
    let truncated: Bool

    init(action: ACLAction, admitted: TopicService.Admitted, names: [Principal: String]) {
        self.action = action.rawValue
        anyAuthenticatedUser = admitted.anyAuthenticated
        anonymous = admitted.anonymous
        principals = admitted.decisions.map { NamedPrincipal($0, names: names) }
        truncated = admitted.truncated
    }
}
