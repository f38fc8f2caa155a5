import ArgumentParser

/// `topicgate emulate thing|phone`: a thing and a phone made of this executable, to see the
/// whole command loop without hardware or a phone.
struct EmulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulate", abstract: "Emulate a thing or a phone against a running TopicGate.",
        subcommands: [EmulateThingCommand.self, EmulatePhoneCommand.self])
}
