import ArgumentParser
import TopicGateCore

/// `emulate phone send`: sends a push message to a topic.
struct PhoneSendMessageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "send", abstract: "Send a message to a topic.")
    @OptionGroup var options: PhoneOptions
    @Option(help: "The topic's name.") var topic: String
    @Option(help: "A group whose topic it is (default: the user's own topic).") var group: String?
    @Option(help: "The message text (sent as data.msg).") var message: String

    func run() async throws {
        let session = try await PhoneSession.open(options)
        let path = PhoneSubscribeCommand.topicPath(topic, group: group)
        let sent = try await session.call(
            "POST", "\(path)/push/messages", body: ["data": ["msg": .string(message)]],
            contentType: "application/vnd.kii.SendPushMessageRequest+json")
        EmulatedDevice.say("sent: \(sent.objectValue?["pushMessageID"]?.stringValue ?? "?")")
    }
}
