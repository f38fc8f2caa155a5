import Foundation
import Hummingbird
import TopicGateCore

/// Reading the typed path parameters of Kii's routes; a segment that cannot name anything is
/// a 404 of the right kind, never a 500.
extension Parameters {
    func appID() throws -> String {
        try require("appID")
    }

    /// A segment as the client meant it: `LOGIN_NAME%3Aann` and `EMAIL:a%40b.example` are
    /// `LOGIN_NAME:ann` and `EMAIL:a@b.example` (browsers and most HTTP libraries encode them).
    func decoded(_ name: String) throws -> String {
        let segment = try require(name)
        return segment.contains("%") ? segment.removingPercentEncoding ?? segment : segment
    }

    func userReference(appID: AppID) throws -> UserReference {
        let segment = try decoded("user")
        guard let reference = UserReference(pathSegment: segment) else {
            throw KiiError.userNotFound(appID: appID, field: "userID", value: segment)
        }
        return reference
    }

    func userID(_ name: String, appID: AppID) throws -> UserID {
        let segment = try require(name)
        guard IDSyntax.isWellFormed(segment) else {
            throw KiiError.userNotFound(appID: appID, field: "userID", value: segment)
        }
        return UserID(segment)
    }

    func groupID() throws -> GroupID {
        GroupID(try require("group"))
    }

    /// The thing the path segment `name` names.
    func thingReference(appID: AppID, _ name: String = "thing") throws -> ThingReference {
        let segment = try decoded(name)
        guard let reference = ThingReference(pathSegment: segment) else {
            throw ThingReference.id(ThingID(segment)).notFound(appID: appID)
        }
        return reference
    }

    /// The installation the path names: its ID or `{deviceType}:{registrationID}`.
    func installationReference() throws -> InstallationReference {
        InstallationReference(pathSegment: try require("installation"))
    }

    /// A Thing-IF target, `thing:{thingID}` (the prefix in any case).
    func target(appID: AppID) throws -> ThingReference {
        let segment = try require("target")
        guard let colon = segment.firstIndex(of: ":"), segment[..<colon].lowercased() == "thing" else {
            throw KiiError(.thingNotFound, "A target is 'thing:{thingID}'.", context: ["target": .string(segment)])
        }
        let id = String(segment[segment.index(after: colon)...])
        guard IDSyntax.isWellFormed(id) else { throw ThingReference.id(ThingID(id)).notFound(appID: appID) }
        return .id(ThingID(id))
    }

    func owner() throws -> Owner {
        let segment = try require("owner")
        guard let owner = Owner(parsing: segment) else {
            throw KiiError(
                .thingOwnershipNotFound, "An owner is 'user:ID' or 'group:ID'.", context: ["owner": .string(segment)])
        }
        return owner
    }
}
