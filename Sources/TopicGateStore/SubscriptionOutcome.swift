/// What a subscription request did.
public enum SubscriptionOutcome: Sendable, Equatable {
    /// The subscription is new.
    case added
    /// The subscriber was subscribed already.
    case existing
    /// Nothing was added: the subscriber holds `held` subscriptions in the app already, at or
    /// past the limit the request gave.
    case limited(held: Int)
}
