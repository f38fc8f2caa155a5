/// The body of `POST …/things/{id}/ownership`: the new owner (`userID` or `groupID`) and the
/// thing's password.
public struct OwnershipClaimRequest: JSONRequestBody, Hashable {
    public var owner: Owner
    public var thingPassword: String

    public init(body: [String: JSONValue]) throws(KiiError) {
        if let user = body["userID"]?.stringValue {
            owner = .user(UserID(user))
        } else if let group = body["groupID"]?.stringValue {
            owner = .group(GroupID(group))
        } else {
            throw KiiError.invalidInput("Name the new owner with 'userID' or 'groupID'.", field: "userID")
        }
        guard let password = body["thingPassword"]?.stringValue else {
            throw KiiError.invalidInput("'thingPassword' is required.", field: "thingPassword")
        }
        thingPassword = password
    }
}
