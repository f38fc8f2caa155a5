/// What an insertion counted against a quota did: the count and the insertion are one write,
/// so that requests racing past the quota cannot end above it.
public enum QuotaInsertion: Sendable, Equatable {
    case inserted
    /// Nothing was inserted: the principal holds `held` already, at or past the limit given.
    case limited(held: Int)
}
