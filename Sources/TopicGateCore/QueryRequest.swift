/// The body of a thing or user query (`POST …/things/query` with `ThingQueryRequest+json`,
/// `POST …/users/query` with `UserQueryRequest+json`): `{"<envelope>": {"clause", "orderBy",
/// "descending"}, "bestEffortLimit", "paginationKey"}`. kii_go sends `bestEffortLimit` as a
/// string, other clients as a number; both are read.
public struct QueryRequest: Sendable, Hashable {
    public var clause: QueryClause
    public var orderBy: String?
    public var descending: Bool
    /// At most this many results a page (`maximumLimit`; the default when not given).
    public var limit: Int
    /// Where the previous page ended (a key this server handed out).
    public var paginationKey: String?

    public static let defaultLimit = 100
    public static let maximumLimit = 200

    /// `envelope`: `thingQuery` or `userQuery`.
    public init(envelope: String, body: [String: JSONValue]) throws(KiiError) {
        guard let query = body[envelope]?.objectValue else {
            throw KiiError.invalidInput("The body needs a '\(envelope)' object.", field: envelope)
        }
        clause = try query["clause"].map { (clause) throws(KiiError) in try QueryClause(json: clause) } ?? .all
        if let order = query["orderBy"], !order.isNull {
            guard let field = order.stringValue, !field.isEmpty else {
                throw KiiError.invalidInput("'orderBy' is a field name.", field: "orderBy")
            }
            orderBy = field
        }
        descending = query["descending"]?.boolValue ?? false
        switch body["bestEffortLimit"] {
        case nil, .null?: limit = Self.defaultLimit
        case .int(let value)? where value > 0: limit = Int(min(value, Int64(Self.maximumLimit)))
        case .string(let text)?:
            guard let value = Int(text), value > 0 else { throw Self.badLimit }
            limit = min(value, Self.maximumLimit)
        default: throw Self.badLimit
        }
        switch body["paginationKey"] {
        case nil, .null?: paginationKey = nil
        case .string(let key)?: paginationKey = key.isEmpty ? nil : key
        default: throw KiiError.invalidInput("'paginationKey' is a string.", field: "paginationKey")
        }
    }

    static var badLimit: KiiError {
        KiiError.invalidInput("'bestEffortLimit' is a positive number.", field: "bestEffortLimit")
    }
}
