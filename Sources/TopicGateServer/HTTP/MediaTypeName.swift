import Foundation
import HTTPTypes
import Hummingbird

/// The lower-cased media type of a request without parameters (`application/vnd.kii.x+json`).
struct MediaTypeName {
    let value: String

    init(_ request: Request) {
        let header = request.headers[.contentType] ?? ""
        value = String(header.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }

    func contains(_ fragment: String) -> Bool { value.contains(fragment.lowercased()) }
}
