internal import PostgresNIO
import TopicGateCore

/// A topic's row, locked until the transaction ends (two gateways changing one topic's entries
/// take turns).
struct LockedTopicByAddress: NamedStatement {
    static let sql = TopicByAddress.sql + " FOR UPDATE"

    let topic: TopicByAddress

    func makeBindings() -> PostgresBindings { topic.makeBindings() }
}
