import ArgumentParser
import Foundation
import TopicGateCore

/// `topicgate topics search [TEXT]` and `topicgate topics overview`: what the console's topic
/// search and overview show, from the same admin API.
struct TopicsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topics", abstract: "Find topics across all scopes; the app's overview.",
        subcommands: [Search.self, Overview.self])

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
            ACLCommand.printTable(rows)
        }
    }
}
