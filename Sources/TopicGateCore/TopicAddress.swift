/// A topic's full name within an app: its scope and its name. Reads and prints the operators'
/// form `app/news`, `group/<id>/chat`, `user/<id>/inbox`, `thing/<id>/alerts`.
public struct TopicAddress: Sendable, Hashable, CustomStringConvertible {
    public var scope: TopicScope
    public var name: TopicName

    public init(scope: TopicScope, name: TopicName) {
        self.scope = scope
        self.name = name
    }

    /// Parses the operators' form; nil when it is not one.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let scope: TopicScope
        switch (parts.first, parts.count) {
        case ("app", 2): scope = .app
        case ("group", 3) where IDSyntax.isWellFormed(parts[1]): scope = .group(GroupID(parts[1]))
        case ("user", 3) where IDSyntax.isWellFormed(parts[1]): scope = .user(UserID(parts[1]))
        case ("thing", 3) where IDSyntax.isWellFormed(parts[1]): scope = .thing(ThingID(parts[1]))
        default: return nil
        }
        guard let name = TopicName(rawValue: parts[parts.count - 1]) else { return nil }
        self.init(scope: scope, name: name)
    }

    public var description: String { "\(scope)/\(name)" }

    /// The path of this topic below `/api/apps/{appID}`.
    public var path: String {
        switch scope {
        case .app: "/topics/\(name)"
        case .group(let id): "/groups/\(id.rawValue)/topics/\(name)"
        case .user(let id): "/users/\(id.rawValue)/topics/\(name)"
        case .thing(let id): "/things/\(id.rawValue)/topics/\(name)"
        }
    }
}
