import TopicGateCore

/// `GET …/installations/{id}`, as Kii's SDKs read it: the installation, its device type, and
/// the user or thing it was installed for.
struct InstallationRecord: Encodable, Sendable {
    let installationID: String
    let installationRegistrationID: String
    let deviceType: String
    let development: Bool
    let createdAt: UnixMillis
    let userID: String?
    let thingID: String?

    init(_ installation: Installation) {
        installationID = installation.id.rawValue
        installationRegistrationID = installation.registrationID
        deviceType = installation.deviceType
        development = installation.development
        createdAt = installation.createdAt
        userID = installation.principal.userID?.rawValue
        thingID = installation.principal.thingID?.rawValue
    }
}
