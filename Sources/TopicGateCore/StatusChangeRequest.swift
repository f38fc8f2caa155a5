/// The body of `PUT …/users/{id}/status` and `PUT …/things/{id}/status`: `{"disabled": bool}`.
public struct StatusChangeRequest: JSONRequestBody, Hashable {
    public var disabled: Bool

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard case .bool(let disabled)? = body["disabled"] else {
            throw KiiError.invalidInput("'disabled' must be true or false.", field: "disabled")
        }
        self.disabled = disabled
    }
}
