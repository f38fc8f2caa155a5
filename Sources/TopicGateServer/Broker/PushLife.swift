/// How long a device may stay away and still get the pushes sent meanwhile: its broker keeps
/// its persistent session, with up to `max_queued_messages` pushes waiting in it, for this long
/// after it disconnected (Mosquitto's `persistent_client_expiration`, which counts in whole
/// hours). After that the session goes with what waits in it; the device, back, subscribes
/// anew (Kii's SDKs do on every connect) and gets what is sent from then on.
public struct PushLife: Sendable, Hashable {
    public let hours: Int

    /// Four days: a phone off from Friday evening to the Tuesday morning after a long weekend.
    public static let `default` = PushLife(validHours: 96)

    private init(validHours: Int) { hours = validHours }

    /// `96h` or `4d`: 1 hour to 365 days; nil otherwise.
    public init?(parsing text: String) {
        guard let unit = text.last, let count = Int(text.dropLast()), count > 0 else { return nil }
        switch unit {
        case "h": hours = count
        case "d": hours = count.multipliedReportingOverflow(by: 24).overflow ? Int.max : count * 24
        default: return nil
        }
        guard hours <= 365 * 24 else { return nil }
    }

    /// The value of Mosquitto's `persistent_client_expiration`.
    public var brokerSetting: String { "\(hours)h" }
}
