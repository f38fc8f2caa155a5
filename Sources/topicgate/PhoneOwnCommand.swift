import ArgumentParser
import TopicGateCore

/// `emulate phone own`: onboards a thing with this phone's user as its owner.
struct PhoneOwnCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "own", abstract: "Become an owner of a thing (onboarding).")
    @OptionGroup var options: PhoneOptions
    @Option(help: "The thing's vendor thing ID.") var vendorThingID: String
    @Option(help: "The thing's password.") var password: String

    func run() async throws {
        let session = try await PhoneSession.open(options)
        let onboarded = try await KiiHTTP.call(
            server: session.server, "POST", "/thing-if/apps/\(session.profile.appID)/onboardings",
            token: session.profile.token,
            body: [
                "vendorThingID": .string(vendorThingID), "thingPassword": .string(password),
                "owner": .string("user:\(session.profile.userID)"),
            ],
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json")
        EmulatedDevice.say("owner of thing \(onboarded.objectValue?["thingID"]?.stringValue ?? "?") (\(vendorThingID))")
    }
}
