/// A request body as a service takes it: parsed and checked from the JSON object a client
/// sent, failing with the Kii error that names the offending field.
public protocol JSONRequestBody: Sendable {
    init(body: [String: JSONValue]) throws(KiiError)
}
