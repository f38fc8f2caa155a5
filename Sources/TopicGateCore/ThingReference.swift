/// How a path names a thing: its ID or `VENDOR_THING_ID:{vendorThingID}`.
public enum ThingReference: Sendable, Hashable, CustomStringConvertible {
    case id(ThingID)
    case vendorThingID(String)

    /// Reads a path segment: an ID (also as the typed `thing:ID`) or `VENDOR_THING_ID:…`, the
    /// prefixes matched case-insensitively; nil for anything else.
    public init?(pathSegment segment: String) {
        if let colon = segment.firstIndex(of: ":") {
            let prefix = segment[..<colon].uppercased()
            let rest = String(segment[segment.index(after: colon)...])
            if prefix == "THING" {
                guard IDSyntax.isWellFormed(rest) else { return nil }
                self = .id(ThingID(rest))
                return
            }
            guard prefix == "VENDOR_THING_ID" else { return nil }
            let vendorThingID = rest
            guard !vendorThingID.isEmpty else { return nil }
            self = .vendorThingID(vendorThingID)
        } else if IDSyntax.isWellFormed(segment) {
            self = .id(ThingID(segment))
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .id(let id): id.rawValue
        case .vendorThingID(let vendorThingID): "VENDOR_THING_ID:\(vendorThingID)"
        }
    }

    /// The context of a `THING_NOT_FOUND` error for this reference.
    public func notFound(appID: AppID) -> KiiError {
        switch self {
        case .id(let id):
            KiiError(
                .thingNotFound, "Thing \(id.rawValue) was not found.",
                context: [
                    "field": "thingID", "value": .string(id.rawValue), "appID": .string(appID.rawValue),
                ])
        case .vendorThingID(let vendorThingID):
            KiiError(
                .thingNotFound, "Thing with vendor thing ID \(vendorThingID) was not found.",
                context: [
                    "field": "vendorThingID", "value": .string(vendorThingID), "appID": .string(appID.rawValue),
                ])
        }
    }
}
