public import TopicGateCore

/// What inserting a device's installation did. The lookup of the same device, the quota's
/// count and the insert are one write, so that installs racing with one registration ID end
/// with one installation, and installs racing past the quota cannot end above it.
public enum InstallationInsertion: Sendable, Equatable {
    case inserted
    /// Nothing was inserted: this live installation is the same device (principal, device
    /// type, registration ID, token and development flag), installed already.
    case existing(Installation)
    /// Nothing was inserted: the principal holds `held` already, at or past the limit given.
    case limited(held: Int)
}
