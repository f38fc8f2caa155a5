/// One change to a topic's ACL: grant or revoke an entry.
public struct ACLChange: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case grant
        case revoke
    }

    public var kind: Kind
    public var entry: ACLEntry

    public init(_ kind: Kind, _ entry: ACLEntry) {
        self.kind = kind
        self.entry = entry
    }

    public var description: String { "\(kind.rawValue) \(entry)" }
}
