import TopicGateCore

/// What one user or thing may hold at once: its live installations, the topics it created and
/// its subscriptions (`--max-installations`, `--max-topics`, `--max-subscriptions`). A quota
/// protects the store and the brokers from one identity (an anonymous pseudo user costs
/// nothing to make), and answers 403 `QUOTA_EXCEEDED` naming the quota and its limit. Each is
/// counted in the write that adds to it, so that requests racing past the limit do not end
/// above it (on PostgreSQL, subscriptions excepted: a few may).
enum PrincipalQuota: String, Sendable {
    case installations
    case topics
    case subscriptions

    /// Throws when `count` things of this kind are already held and `limit` caps them.
    func require(count: Int, limit: Int?, principal: Principal) throws(KiiError) {
        guard let limit, count >= limit else { return }
        throw KiiError(
            .quotaExceeded, "\(principal) holds \(count) \(rawValue) already, the most it may (\(limit)).",
            context: ["quota": .string(rawValue), "limit": .int(Int64(limit))])
    }
}
