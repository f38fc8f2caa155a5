import TopicGateCore

/// `GET …/topics`, as Kii answers it: a page of a scope's topics, and the key of the next one.
struct TopicPage: Encodable, Sendable {
    struct Entry: Encodable, Sendable {
        let topicID: String
    }

    let topics: [Entry]
    let paginationKey: String?

    init(_ topics: [Topic], next: String?) {
        self.topics = topics.map { Entry(topicID: $0.name.rawValue) }
        paginationKey = next
    }
}
