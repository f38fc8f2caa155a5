import Foundation

/// `docs/api.md`: every route of the tables that `/openapi.json` is built from, as
/// Markdown tables grouped by area, so the reference a person reads cannot drift from what the
/// router serves (a test compares the file with this text; `topicgate openapi --markdown`
/// prints it).
public enum APIReference {
    public static func markdown() -> String {
        var lines = [
            "# HTTP API",
            "",
            "Every route TopicGate serves, generated from the route tables the server is built from, as "
                + "`GET /openapi.json` is (regenerate with `topicgate openapi --markdown > docs/api.md`; a test keeps this file "
                + "current). Paths, headers and bodies are Kii's; the OpenAPI document has every schema.",
            "",
            "- **Who**: `bearer` is `Authorization: Bearer <token>` (a user's, a thing's, the admin's or an "
                + "anonymous token); `basic` is `Basic base64(appID:appKey)` (anonymous) or "
                + "`base64(clientID:clientSecret)` (the admin); `none` needs no credentials. Routes marked "
                + "(admin) need the admin; the others decide by the caller as the area's documents say.",
            "- **Body**: the media types read (any of them; `application/json` always works). Bodies of "
                + "routes that take none are ignored.",
            "- **Errors**: every route also answers Kii's error body, `{\"errorCode\",\"message\",…}`, with "
                + "Kii's status codes.",
            "",
        ]
        var tags: [String] = []
        for operation in APIRoutes.operations where !tags.contains(operation.tag) { tags.append(operation.tag) }
        lines.append(tags.map { "[\($0)](#\(anchor($0)))" }.joined(separator: " · "))
        for tag in tags {
            lines += [
                "", "## \(tag)", "", "| method | path | what | who | body | success |", "|---|---|---|---|---|---|",
            ]
            for operation in APIRoutes.operations where operation.tag == tag {
                var path = operation.path
                let query = operation.query.map(\.name)
                if !query.isEmpty { path += "?" + query.map { "\($0)=" }.joined(separator: "&") }
                let body = operation.body.map { body in
                    body.mediaTypes.filter { $0 != "application/json" }.map { "`\($0)`" }.joined(separator: ", ")
                }
                let bodyText = body.map { $0.isEmpty ? "JSON" : $0 } ?? "–"
                lines.append(
                    "| \(operation.method.uppercased()) | `\(escaped(path))` | \(escaped(operation.summary)) | "
                        + operation.credentials.map(\.rawValue).joined(separator: ", ")
                        + " | \(bodyText) | \(operation.success.map(String.init).joined(separator: ", ")) |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func escaped(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }

    private static func anchor(_ heading: String) -> String {
        String(heading.lowercased().map { $0 == " " ? "-" : $0 }.filter { $0.isLetter || $0.isNumber || $0 == "-" })
    }
}
