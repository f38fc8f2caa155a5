/// A value whose wire form is its `json` (Kii's, where Kii has one): said once, and a typed
/// answer that holds the value encodes it that way.
public protocol JSONRepresentable: Encodable {
    /// The value as the API writes it.
    var json: JSONValue { get }
}

extension JSONRepresentable {
    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
