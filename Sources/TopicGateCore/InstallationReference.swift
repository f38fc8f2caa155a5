/// How a path names an installation: its ID or `{deviceType}:{registrationID}` (the device's own
/// push token, as the SDKs that registered it know it).
public enum InstallationReference: Sendable, Hashable, CustomStringConvertible {
    case id(InstallationID)
    case registration(deviceType: String, registrationID: String)

    /// Reads a path segment: `TYPE:registrationID` when it holds a colon, else an ID.
    public init(pathSegment segment: String) {
        if let colon = segment.firstIndex(of: ":") {
            self = .registration(
                deviceType: String(segment[..<colon]), registrationID: String(segment[segment.index(after: colon)...]))
        } else {
            self = .id(InstallationID(segment))
        }
    }

    /// As the path wrote it.
    public var description: String {
        switch self {
        case .id(let id): id.rawValue
        case .registration(let deviceType, let registrationID): "\(deviceType):\(registrationID)"
        }
    }
}
