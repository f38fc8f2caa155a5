import ArgumentParser
import TopicGateCore

/// The ACL entry `topicgate acl grant` and `revoke` name: an action, a subject, a topic.
struct ACLEntryArguments: ParsableArguments {
    @OptionGroup var options: AdminOptions
    @Option(help: "SUBSCRIBE_TO_TOPIC or SEND_MESSAGE_TO_TOPIC.") var action: String
    @Option(help: "UserID:ID, GroupID:ID, ThingID:ID, UserID:ANY_AUTHENTICATED_USER or UserID:ANONYMOUS_USER.")
    var subject: String
    @Argument(help: "The topic, e.g. group/<id>/chat.") var topic: String

    /// Sends `method` to the entry's path as the admin, then prints `done` and the topic.
    func send(_ method: String, done: String) async throws {
        let address = try ACLCommand.address(topic)
        _ = try await options.client().call(method, address.path + "/acl/\(action)/\(subject)")
        print("\(done) on \(address)")
    }
}
