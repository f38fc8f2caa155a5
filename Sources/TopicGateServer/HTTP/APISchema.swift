import TopicGateCore

/// The words route tables describe bodies and query parameters with, as JSON Schema.
enum APISchema {
    static func object(_ properties: [String: JSONValue], required: [String] = []) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "object", "properties": .object(properties)]
        if !required.isEmpty { schema["required"] = .array(required.map { .string($0) }) }
        return .object(schema)
    }

    static let string: JSONValue = ["type": "string"]
    static let boolean: JSONValue = ["type": "boolean"]
    static let integer: JSONValue = ["type": "integer"]
    static let anyObject: JSONValue = ["type": "object"]
    static func array(of items: JSONValue) -> JSONValue { ["type": "array", "items": items] }
    static func oneOf(_ values: [String]) -> JSONValue {
        ["type": "string", "enum": .array(values.map { .string($0) })]
    }
    /// ebisu sends some booleans as strings.
    static let flag: JSONValue = ["type": ["boolean", "string"]]

    /// A JSON body of `schema`, read under `mediaTypes` and `application/json`.
    static func json(_ schema: JSONValue, _ mediaTypes: String..., required: Bool = true) -> APIOperation.Body {
        APIOperation.Body(mediaTypes: mediaTypes + ["application/json"], schema: schema, required: required)
    }

    /// `?limit=&paginationKey=`.
    static let paging: [APIOperation.Query] = [("limit", integer), ("paginationKey", string)]
    /// `?bestEffortLimit=&paginationKey=`, as Thing-IF pages.
    static let bestEffortPaging: [APIOperation.Query] = [("bestEffortLimit", integer), ("paginationKey", string)]

    /// A query body: `{"<envelope>": {"clause", "orderBy", "descending"}, "bestEffortLimit",
    /// "paginationKey"}`.
    static func query(_ envelope: String) -> JSONValue {
        object(
            [
                envelope: object(["clause": anyObject, "orderBy": string, "descending": boolean], required: []),
                "bestEffortLimit": ["type": ["integer", "string"]], "paginationKey": string,
            ], required: [envelope])
    }
}
