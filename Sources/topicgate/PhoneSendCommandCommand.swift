import ArgumentParser
import Foundation
import MQTTBridge
import TopicGateCore

/// `emulate phone command`: sends a command to a thing and waits for its `commandID` push.
struct PhoneSendCommandCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "command", abstract: "Send a command to a thing and wait for its result push.")
    @OptionGroup var options: PhoneOptions
    @Option(help: "The thing: its vendor thing ID.") var vendorThingID: String
    @Option(help: "The actions as JSON (trait format).") var actions = #"[{"Lamp":[{"turnPower":true}]}]"#
    @Option(help: "Issue as this group (the user must be a member of a group owner).") var group: String?
    @Option(help: "Seconds to wait for the result push.") var wait = 30

    func run() async throws {
        let session = try await PhoneSession.open(options)
        guard let parsed = try? JSONReader.value(Array(actions.utf8)), parsed.arrayValue != nil else {
            throw ValidationError("--actions must be a JSON array.")
        }
        // Listen first, so that the result cannot arrive before we do.
        let device = try await session.connect()
        defer { device.client.shutdown() }
        let thing = try await session.call("GET", "/things/VENDOR_THING_ID:\(vendorThingID)")
        guard let thingID = thing.objectValue?["_thingID"]?.stringValue else { throw ValidationError("No such thing.") }
        let issuer = group.map { "group:\($0)" } ?? "user:\(session.profile.userID)"
        let created = try await KiiHTTP.call(
            server: session.server, "POST", "/thing-if/apps/\(session.profile.appID)/targets/thing:\(thingID)/commands",
            token: session.profile.token, body: ["actions": parsed, "issuer": .string(issuer)],
            contentType: "application/vnd.kii.CommandCreationRequest+json")
        guard let commandID = created.objectValue?["commandID"]?.stringValue else {
            throw ValidationError("No commandID.")
        }
        EmulatedDevice.say("command \(commandID) sent to \(vendorThingID) as \(issuer); waiting for its result push")
        let received = await withTaskGroup(of: Bool.self) { waiting in
            waiting.addTask {
                for await message in device.client.messages {
                    EmulatedDevice.say("push: \(message.text)")
                    if (try? JSONReader.object(message.payload))?["commandID"]?.stringValue == commandID { return true }
                }
                return false
            }
            waiting.addTask {
                try? await Task.sleep(for: .seconds(wait))
                return false
            }
            let first = await waiting.next() ?? false
            waiting.cancelAll()
            return first
        }
        guard received else {
            EmulatedDevice.say("no result push for \(commandID) within \(wait) s")
            throw ExitCode(1)
        }
        let command = try await KiiHTTP.call(
            server: session.server, "GET",
            "/thing-if/apps/\(session.profile.appID)/targets/thing:\(thingID)/commands/\(commandID)",
            token: session.profile.token)
        EmulatedDevice.say("command \(commandID): \(command.objectValue?["commandState"]?.stringValue ?? "?")")
    }
}
