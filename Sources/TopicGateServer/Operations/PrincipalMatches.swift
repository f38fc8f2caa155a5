import TopicGateStore

/// `GET …/principal-search`: users, groups and things whose ID, names or contacts contain the
/// text.
struct PrincipalMatches: Encodable, Sendable {
    struct Match: Encodable, Sendable {
        let principal: String
        let kind: String
        let disabled: Bool
        let name: String?
        let detail: String?
    }

    let principals: [Match]

    init(_ found: [PrincipalMatch]) {
        principals = found.map { match in
            Match(
                principal: "\(match.kind.rawValue):\(match.id)", kind: match.kind.rawValue, disabled: match.disabled,
                name: match.name, detail: match.detail)
        }
    }
}
