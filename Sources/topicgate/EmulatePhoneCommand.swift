import ArgumentParser
import Foundation
import MQTTBridge
import TopicGateCore

/// `topicgate emulate phone`: a pseudo user on an MQTT device (the same one on every run,
/// kept in its profile file), with subcommands for what an app does.
struct EmulatePhoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phone", abstract: "Emulate a phone: a pseudo user with an MQTT device.",
        subcommands: [
            PhoneListenCommand.self, PhoneOwnCommand.self, PhoneSendCommandCommand.self, PhoneSubscribeCommand.self,
            PhoneSendMessageCommand.self,
        ],
        defaultSubcommand: PhoneListenCommand.self)
}

/// `emulate phone listen`: prints every push the device receives.
struct PhoneListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen", abstract: "Print every push this phone receives.")
    @OptionGroup var options: PhoneOptions

    func run() async throws {
        let session = try await PhoneSession.open(options)
        let device = try await session.connect()
        defer { device.client.shutdown() }
        EmulatedDevice.say("phone of user \(session.profile.userID) listening on MQTT topic \(device.topic)")
        for await message in device.client.messages {
            EmulatedDevice.say("push: \(message.text)")
        }
    }
}
