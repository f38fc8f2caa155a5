/// The body of `POST …/groups` and `PUT …/groups/{id}`: the name, the owner (the admin must
/// name one; a user may name only itself) and the first members.
public struct GroupCreationRequest: JSONRequestBody, Hashable {
    public var name: String
    public var owner: UserID?
    public var members: [UserID]

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard let nameValue = body["name"]?.stringValue else {
            throw KiiError.invalidInput("A group needs a 'name'.", field: "name")
        }
        name = try IdentityRules.groupName(nameValue)
        switch body["owner"] {
        case nil, .null: owner = nil
        case .string(let id): owner = UserID(id)
        default: throw KiiError.invalidInput("'owner' must be a user ID.", field: "owner")
        }
        members = []
        if let list = body["members"], !list.isNull {
            guard let array = list.arrayValue else {
                throw KiiError.invalidInput("'members' must be an array of user IDs.", field: "members")
            }
            for element in array {
                guard let text = element.stringValue, IDSyntax.isWellFormed(text) else {
                    throw KiiError.invalidInput("'members' must be an array of user IDs.", field: "members")
                }
                members.append(UserID(text))
            }
        }
    }
}
