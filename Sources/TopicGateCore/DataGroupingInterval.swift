/// How a thing's state history is grouped for grouped queries and aggregations (Kii's trait
/// attribute `dataGroupingInterval`, also taken at onboarding). TopicGate's default is 15 minutes.
public enum DataGroupingInterval: String, Sendable, Hashable, CaseIterable {
    case oneMinute = "1_MINUTE"
    case fifteenMinutes = "15_MINUTES"
    case thirtyMinutes = "30_MINUTES"
    case oneHour = "1_HOUR"
    case twelveHours = "12_HOURS"

    public static let standard = DataGroupingInterval.fifteenMinutes
    /// A grouped query covers at most this many intervals (Kii's SDKs refuse more).
    public static let maximumGroups: Int64 = 60

    public var milliseconds: Int64 {
        switch self {
        case .oneMinute: 60_000
        case .fifteenMinutes: 900_000
        case .thirtyMinutes: 1_800_000
        case .oneHour: 3_600_000
        case .twelveHours: 43_200_000
        }
    }

    /// The start of the interval `time` falls in.
    public func start(of time: UnixMillis) -> UnixMillis {
        let t = time.rawValue
        return UnixMillis(t - ((t % milliseconds) + milliseconds) % milliseconds)
    }
}
