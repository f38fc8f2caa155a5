/// A group of users. Its owner is always one of its members.
public struct Group: Sendable, Hashable, JSONRepresentable {
    public var id: GroupID
    public var appID: AppID
    public var name: String
    public var owner: UserID
    public var createdAt: UnixMillis
    public var modifiedAt: UnixMillis

    public init(id: GroupID, appID: AppID, name: String, owner: UserID, createdAt: UnixMillis, modifiedAt: UnixMillis) {
        self.id = id
        self.appID = appID
        self.name = name
        self.owner = owner
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    /// `GroupRetrievalResponse`.
    public var json: JSONValue {
        [
            "groupID": .string(id.rawValue), "name": .string(name), "owner": .string(owner.rawValue),
            "createdAt": createdAt.json, "modifiedAt": modifiedAt.json,
        ]
    }
}
