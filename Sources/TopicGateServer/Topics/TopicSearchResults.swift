import TopicGateCore

/// `GET …/topic-search`: topics of every scope, with the names of their creators and scope
/// owners where they have one.
struct TopicSearchResults: Encodable, Sendable {
    struct Found: Encodable, Sendable {
        let topicID: String
        let scope: String
        let creator: String
        let createdAt: UnixMillis
        let creatorName: String?
        let scopeName: String?
    }

    let topics: [Found]

    init(_ found: [Topic], names: [Principal: String]) {
        topics = found.map { topic in
            Found(
                topicID: topic.name.rawValue, scope: topic.scope.description, creator: topic.creator.description,
                createdAt: topic.createdAt, creatorName: names[topic.creator],
                scopeName: topic.scope.principal.flatMap { names[$0] })
        }
    }
}
