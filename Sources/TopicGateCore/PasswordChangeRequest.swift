/// The body of `PUT …/users/{id}/password` and `PUT …/things/{id}/password`: the new password
/// (checked against the rule of its kind of account when it is set) and, for a user changing its own, the old one.
public struct PasswordChangeRequest: JSONRequestBody, Hashable {
    public var newPassword: String
    public var oldPassword: String?

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard let newValue = body["newPassword"]?.stringValue else {
            throw KiiError.invalidInput("'newPassword' is required.", field: "newPassword")
        }
        newPassword = newValue
        oldPassword = body["oldPassword"]?.stringValue
    }
}
