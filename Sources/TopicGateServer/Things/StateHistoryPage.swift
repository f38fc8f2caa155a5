import TopicGateCore

/// `GET …/states/history` (and one alias's): the states oldest first, each with when it was
/// recorded, and `complete: false` when the page stopped short of the range.
struct StateHistoryPage: Encodable, Sendable {
    struct Entry: Encodable, Sendable {
        let recordedAt: UnixMillis
        /// The thing's state as it reported it: Kii's state has no fixed shape.
        let state: JSONValue
    }

    let states: [Entry]
    let complete: Bool
}
