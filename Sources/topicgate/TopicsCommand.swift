import ArgumentParser
import Foundation
import TopicGateCore

/// `topicgate topics search [TEXT]`, `topicgate topics overview` and `topicgate topics test-push
/// TOPIC`: what the console's topic search, overview and test push do, through the same admin API.
struct TopicsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topics", abstract: "Find topics across all scopes; the app's overview.",
        subcommands: [Search.self, Overview.self, TestPush.self])

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Topics of every scope whose name, scope owner or creator contains TEXT (any case).",
            discussion: "Owners and creators match by ID, login name, group name or vendor thing ID.")
        @OptionGroup var options: AdminOptions
        @Option(help: "At most this many (1 to 1000).") var limit = 100
        @Argument(help: "What to look for; all topics when left out.") var text = ""

        func run() async throws {
            let query = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let reply = try await options.client().call("GET", "/topic-search?q=\(query)&limit=\(limit)")
            var rows = [["TOPIC", "SCOPE OWNER", "CREATOR", "CREATED"]]
            for topic in reply.objects("topics") {
                let scope = topic["scope"]?.stringValue ?? ""
                rows.append([
                    scope + "/" + (topic["topicID"]?.stringValue ?? ""), topic["scopeName"]?.stringValue ?? "",
                    [topic["creator"]?.stringValue, topic["creatorName"]?.stringValue].compactMap { $0 }.joined(
                        separator: " "),
                    UsersCommand.Cleanup.date(topic["createdAt"]),
                ])
            }
            ACLCommand.printTable(rows)
        }
    }

    struct Overview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Counts of the app, outbox depth, dead letters, and what this gateway did since it started.")
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let object = try await options.client().call("GET", "/overview").objectValue ?? [:]
            var rows = [["WHAT", "COUNT"]]
            for section in ["counts", "gateway"] {
                for (key, value) in (object[section]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                    rows.append([key, value.intValue.map(String.init) ?? ""])
                }
            }
            for key in ["outboxDepth", "deadLetters"] {
                rows.append([key, object[key]?.intValue.map(String.init) ?? ""])
            }
            if let connected = object["brokerConnected"] {
                rows.append(["brokerConnected", connected == true ? "yes" : "no"])
            }
            if let count = object["devicesOnline"]?.intValue { rows.append(["devicesOnline", String(count)]) }
            ACLCommand.printTable(rows)
        }
    }

    struct TestPush: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test-push",
            abstract: "Send a test push as the admin and follow it to each subscriber's device.",
            discussion: """
                A device is pending until the broker acknowledged the push for it; then acknowledged (it was \
                connected) or offline (it was not, and gets the push later only if the broker kept its session); \
                failed when the broker refused it or it was given up on.
                """)
        @OptionGroup var options: AdminOptions
        @Option(help: "The text sent as data.message.") var message = "Test from topicgate"
        @Option(help: "Seconds to wait for the pending devices.") var wait = 10
        @Argument(help: "The topic, e.g. group/<id>/chat.") var topic: String

        func run() async throws {
            let address = try ACLCommand.address(topic)
            let client = try await options.client()
            let sent = try await client.call(
                "POST", address.path + "/push/messages?trace=true",
                body: ["data": ["message": .string(message), "test": true]])
            let id = sent.objectValue?["pushMessageID"]?.stringValue ?? ""
            let deadline = ContinuousClock.now + .seconds(wait)
            var trace = try await client.call("GET", "/push/messages/\(id)/deliveries")
            while trace.objectValue?["counts"]?.objectValue?["pending"]?.intValue ?? 0 > 0 && .now < deadline {
                try await Task.sleep(for: .milliseconds(250))
                trace = try await client.call("GET", "/push/messages/\(id)/deliveries")
            }
            let counts = trace.objectValue?["counts"]?.objectValue ?? [:]
            print(
                "Push \(id) to \(address): "
                    + ["acknowledged", "pending", "offline", "failed"].map { "\(counts[$0]?.intValue ?? 0) \($0)" }
                    .joined(separator: ", "))
            var rows = [["DEVICE", "OF", "STATE", "CONNECTED NOW", "DETAIL"]]
            for delivery in trace.objects("deliveries") {
                rows.append([
                    delivery["installationID"]?.stringValue ?? "",
                    [delivery["principal"]?.stringValue, delivery["name"]?.stringValue].compactMap { $0 }.joined(
                        separator: " "),
                    delivery["state"]?.stringValue ?? "", delivery["online"] == true ? "yes" : "no",
                    delivery["detail"]?.stringValue ?? "",
                ])
            }
            ACLCommand.printTable(rows)
        }
    }
}
