import TopicGateCore

/// What `AccessFacts` keeps of a thing as an end node: its attachment to a gateway, or none
/// (kept too: most things are none, and each of their commands would read it again).
struct EndNodeAttachment: Sendable {
    let endNode: EndNode?
}
