import Foundation
import TopicGateCore

/// The HTTP API as an OpenAPI 3.1 document, built from the controllers' route tables
/// (`APIRoutes`): served at `GET /openapi.json` and printed by `topicgate openapi` (the copy in
/// the repository,
/// `Sources/TopicGateServer/App/OpenAPI/openapi.json`, is checked against it by a test).
public enum OpenAPIDocument {
    /// The document `GET /openapi.json` serves.
    public static var servedJSON: JSONValue { json() }

    /// The document as indented JSON with sorted keys (the form kept in the repository).
    public static func prettyPrinted() throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(JSONWriter.bytes(json())))
        let data = try JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func json(operations: [APIOperation] = APIRoutes.operations) -> JSONValue {
        var paths: [String: JSONValue] = [:]
        for operation in operations {
            var item = paths[operation.path]?.objectValue ?? [:]
            item[operation.method] = self.operation(operation)
            paths[operation.path] = .object(item)
        }
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "TopicGate",
                "version": .string(TopicGateVersion.current),
                "description": .string(
                    "A self-hosted backend that speaks the Kii Cloud wire protocol: users (pseudo and normal), groups, "
                        + "things, topics with ACLs, MQTT push and Thing-IF. Every error is a Kii error body; OAuth "
                        + "errors add `error` and `error_description`."),
            ],
            "paths": .object(paths),
            "components": [
                "securitySchemes": [
                    "bearer": ["type": "http", "scheme": "bearer"],
                    "basic": [
                        "type": "http", "scheme": "basic",
                        "description": "appID:appKey (anonymous) or clientID:clientSecret (the admin)",
                    ],
                ],
                "schemas": [
                    "KiiError": [
                        "type": "object",
                        "required": ["errorCode", "message"],
                        "properties": [
                            "errorCode": ["type": "string"], "message": ["type": "string"],
                            "error": ["type": "string"], "error_description": ["type": "string"],
                            "retryAfter": ["type": "integer"],
                        ],
                    ]
                ],
                "responses": [
                    "KiiError": [
                        "description": "A Kii error (4xx; 503 while not ready)",
                        "content": ["application/json": ["schema": ["$ref": "#/components/schemas/KiiError"]]],
                    ]
                ],
            ],
        ]
    }

    static func operation(_ operation: APIOperation) -> JSONValue {
        var object: [String: JSONValue] = [
            "summary": .string(operation.summary),
            "tags": [.string(operation.tag)],
            "operationId": .string(operationID(operation)),
        ]
        var parameters: [JSONValue] = operation.pathParameters.map { name in
            ["name": .string(name), "in": "path", "required": true, "schema": ["type": "string"]]
        }
        parameters += operation.query.map { query in
            ["name": .string(query.name), "in": "query", "required": false, "schema": query.schema]
        }
        if !parameters.isEmpty { object["parameters"] = .array(parameters) }
        if let body = operation.body {
            var content: [String: JSONValue] = [:]
            for mediaType in body.mediaTypes { content[mediaType] = ["schema": body.schema] }
            object["requestBody"] = ["required": .bool(body.required), "content": .object(content)]
        }
        var responses: [String: JSONValue] = ["default": ["$ref": "#/components/responses/KiiError"]]
        for status in operation.success {
            responses[String(status)] =
                status == 204 || operation.method == "head"
                ? ["description": "Done"]
                : ["description": "Done", "content": .object([operation.successMediaType: ["schema": [:]]])]
        }
        object["responses"] = .object(responses)
        object["security"] = .array(
            operation.credentials.map { credential in
                credential == .none ? [:] : .object([credential.rawValue: []])
            })
        return .object(object)
    }

    /// `get_api_apps_appID_users_user` and the like: unique per method and path.
    static func operationID(_ operation: APIOperation) -> String {
        let words = operation.path.split(whereSeparator: { "/{}.-".contains($0) }).map(String.init)
        return ([operation.method] + words).joined(separator: "_")
    }
}
