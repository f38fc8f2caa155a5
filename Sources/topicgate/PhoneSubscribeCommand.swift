import ArgumentParser
import TopicGateCore

/// `emulate phone subscribe`: creates a topic if needed and subscribes this phone's user.
struct PhoneSubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe", abstract: "Subscribe to a topic (created if missing).")
    @OptionGroup var options: PhoneOptions
    @Option(help: "The topic's name.") var topic: String
    @Option(help: "A group whose topic it is (default: the user's own topic).") var group: String?

    func run() async throws {
        let session = try await PhoneSession.open(options)
        let path = PhoneSubscribeCommand.topicPath(topic, group: group)
        let created = try await KiiHTTP.send(
            server: session.server, "PUT", session.appPath + path, token: session.profile.token, body: nil)
        guard created.status == 204 || created.status == 409 else {
            throw KiiHTTPError(status: created.status, reply: created.body)
        }
        try await session.call("PUT", "\(path)/push/subscriptions/users/\(session.profile.userID)")
        EmulatedDevice.say("subscribed to \(path)")
    }

    static func topicPath(_ topic: String, group: String?) -> String {
        group.map { "/groups/\($0)/topics/\(topic)" } ?? "/users/me/topics/\(topic)"
    }
}
