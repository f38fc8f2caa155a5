import TopicGateCore

/// A device installed, as Kii answers it: the installation's ID and registration ID.
struct InstallationCreation: Encodable, Sendable {
    let installationID: String
    let installationRegistrationID: String

    init(_ installation: Installation) {
        installationID = installation.id.rawValue
        installationRegistrationID = installation.registrationID
    }
}
