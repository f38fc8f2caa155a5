import ArgumentParser
import Foundation
import MQTTBridge
import TopicGateCore

/// `topicgate emulate thing`: onboards (registering the thing on first use), connects to MQTT,
/// prints each command, answers it with action results, and publishes a state periodically.
struct EmulateThingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thing", abstract: "Emulate a thing: receive commands, report results and state.")

    @OptionGroup var target: EmulatorOptions
    @Option(help: "The thing's vendor thing ID.") var vendorThingID: String
    @Option(help: "The thing's password.") var password: String
    @Option(help: "Thing type used when the thing is registered.") var thingType = "emulated-lamp"
    @Option(help: "Action names that fail (comma-separated); 'all' fails every action.") var fail: String?
    @Option(help: "Seconds between state reports (0: never).") var stateInterval = 10
    @Flag(help: "Report state over HTTP instead of MQTT.") var stateOverHTTP = false

    func run() async throws {
        let (server, appID) = try target.resolved()
        let onboarded =
            try await KiiHTTP.call(
                server: server, "POST", "/thing-if/apps/\(appID)/onboardings", token: nil,
                body: [
                    "vendorThingID": .string(vendorThingID), "thingPassword": .string(password),
                    "thingType": .string(thingType),
                ],
                contentType: "application/vnd.kii.OnboardingWithVendorThingIDByThing+json"
            ).objectValue ?? [:]
        guard let thingID = onboarded["thingID"]?.stringValue, let token = onboarded["accessToken"]?.stringValue,
            let endpoint = onboarded["mqttEndpoint"]?.objectValue
        else {
            throw KiiHTTPError(
                status: 0, code: "NO_MQTT",
                message: "Onboarding gave no mqttEndpoint: is push on (serve without --broker none)?")
        }
        let device = try await EmulatedDevice.connect(endpoint: endpoint)
        defer { device.client.shutdown() }
        EmulatedDevice.say("thing \(thingID) (\(vendorThingID)) online; MQTT topic \(device.topic)")
        let failing = Set((fail ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        let base = "/thing-if/apps/\(appID)/targets/thing:\(thingID)"

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in device.client.messages {
                    guard let command = try? JSONReader.object(message.payload),
                        let commandID = command["commandID"]?.stringValue,
                        let actions = command["actions"]?.arrayValue
                    else {
                        EmulatedDevice.say("push (not a command): \(message.text)")
                        continue
                    }
                    EmulatedDevice.say(
                        "command \(commandID) from \(command["issuer"]?.stringValue ?? "?"): "
                            + "\(JSONWriter.string(.array(actions)))"
                    )
                    let results = ActionResults.answering(actions) {
                        !(failing.contains("all") || failing.contains($0))
                    }
                    do {
                        _ = try await KiiHTTP.call(
                            server: server, "PUT", "\(base)/commands/\(commandID)/action-results", token: token,
                            body: ["actionResults": results],
                            contentType: "application/vnd.kii.CommandResultsUpdateRequest+json")
                        EmulatedDevice.say("  results sent: \(JSONWriter.string(results))")
                    } catch {
                        EmulatedDevice.say("  results refused: \(error)")
                    }
                }
            }
            if stateInterval > 0 {
                group.addTask {
                    let started = Date()
                    var power = true
                    while !Task.isCancelled {
                        let state: JSONValue = [
                            "power": .bool(power), "brightness": .int(Int64.random(in: 10...100)),
                            "uptime": .int(Int64(Date().timeIntervalSince(started))),
                        ]
                        do {
                            if stateOverHTTP {
                                _ = try await KiiHTTP.call(
                                    server: server, "PUT", "\(base)/states", token: token, body: state)
                            } else {
                                try await device.client.publish(
                                    device.topic + "/state", payload: JSONWriter.bytes(state))
                            }
                            EmulatedDevice.say("state: \(JSONWriter.string(state))")
                        } catch {
                            EmulatedDevice.say("state not sent: \(error)")
                        }
                        power.toggle()
                        try await Task.sleep(for: .seconds(stateInterval))
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }
}
