/// The body of `PUT …/groups/{id}/owner`: `{"owner": userID}`.
public struct GroupOwnerChangeRequest: JSONRequestBody, Hashable {
    public var owner: UserID

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard let ownerID = body["owner"]?.stringValue, IDSyntax.isWellFormed(ownerID) else {
            throw KiiError.invalidInput("'owner' must be a user ID.", field: "owner")
        }
        owner = UserID(ownerID)
    }
}
