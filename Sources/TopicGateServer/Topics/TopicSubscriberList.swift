import TopicGateCore

/// `GET …/push/subscriptions`: the subscribed users and things, and whether each still
/// receives sends.
struct TopicSubscriberList: Encodable, Sendable {
    let subscribers: [NamedPrincipal]
}
