import ArgumentParser
import Foundation
import TopicGateCore

/// `topicgate acl list|explain|who-can|subscribers|grant|revoke|apply|audit <topic>`: operate on
/// a running server's topic ACLs (the console's topic page does the same through the same API). A topic reads `app/news`, `group/<id>/chat`, `user/<id>/inbox`,
/// `thing/<id>/alerts`.
struct ACLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acl", abstract: "Inspect, explain and change topic ACLs on a running server.",
        subcommands: [
            List.self, Explain.self, WhoCan.self, Subscribers.self, Grant.self, Revoke.self, Apply.self, Audit.self,
        ])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The topic's entries, defaults marked.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The topic, e.g. group/<id>/chat.") var topic: String

        func run() async throws {
            let address = try ACLCommand.address(topic)
            let reply = try await options.client().call("GET", address.path + "/acl?detailed=true")
            var rows = [["ACTION", "SUBJECT", "NAME", "DEFAULT", "REMOVABLE"]]
            for entry in reply.objects("entries") {
                rows.append([
                    entry["action"]?.stringValue ?? "", entry["subject"]?.stringValue ?? "",
                    entry["name"]?.stringValue ?? "", entry["default"] == true ? "default" : "granted",
                    entry["removable"] == true ? "yes" : "no",
                ])
            }
            print("ACL of \(address)")
            ACLCommand.printTable(rows)
        }
    }

    struct Explain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Whether a principal may do an action, and why.")
        @OptionGroup var options: AdminOptions
        @Option(help: "user:ID, thing:ID, admin or anonymous.") var principal: String
        @Option(help: "SUBSCRIBE_TO_TOPIC or SEND_MESSAGE_TO_TOPIC.") var action: String
        @Argument(help: "The topic, e.g. group/<id>/chat.") var topic: String

        func run() async throws {
            let address = try ACLCommand.address(topic)
            guard let action = ACLAction(rawValue: action.uppercased()) else {
                throw ValidationError("The action is SUBSCRIBE_TO_TOPIC or SEND_MESSAGE_TO_TOPIC.")
            }
            let reply = try await options.client().call(
                "GET", address.path + "/acl-explain?principal=\(principal)&action=\(action.rawValue)")
            let object = reply.objectValue ?? [:]
            print("\(principal) \(action.rawValue) \(address): \(object["allowed"] == true ? "ALLOWED" : "DENIED")")
            print("  \(object["reason"]?.stringValue ?? "")")
        }
    }

    struct WhoCan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "who-can",
            abstract: "The principals that may subscribe or send (groups expanded), and why each may.")
        @OptionGroup var options: AdminOptions
        @Option(help: "SUBSCRIBE_TO_TOPIC or SEND_MESSAGE_TO_TOPIC.") var action: String
        @Argument(help: "The topic, e.g. group/<id>/chat.") var topic: String

        func run() async throws {
            let address = try ACLCommand.address(topic)
            let reply = try await options.client().call(
                "GET", address.path + "/acl-who-can?action=\(action.uppercased())")
            let object = reply.objectValue ?? [:]
            print("Who may \(action.uppercased()) on \(address):")
            print("  the app admin (always)")
            if object["anyAuthenticatedUser"] == true { print("  every authenticated user and thing") }
            if object["anonymous"] == true { print("  anonymous callers") }
            var rows = [["PRINCIPAL", "NAME", "WHY"]]
            for principal in reply.objects("principals") {
                rows.append(["principal", "name", "reason"].map { principal[$0]?.stringValue ?? "" })
            }
            ACLCommand.printTable(rows)
            if object["truncated"] == true { print("(more principals pass than are listed)") }
        }
    }

    struct Subscribers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The subscribed users and things, and whether sends still reach each.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The topic, e.g. group/<id>/chat.") var topic: String

        func run() async throws {
            let address = try ACLCommand.address(topic)
            let reply = try await options.client().call("GET", address.path + "/push/subscriptions")
            var rows = [["PRINCIPAL", "NAME", "RECEIVES"]]
            for subscriber in reply.objects("subscribers") {
                rows.append([
                    subscriber["principal"]?.stringValue ?? "", subscriber["name"]?.stringValue ?? "",
                    subscriber["receives"] == true ? "yes" : "no (no longer passes SUBSCRIBE_TO_TOPIC)",
                ])
            }
            print("Subscribers of \(address)")
            ACLCommand.printTable(rows)
        }
    }

    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Grant and revoke several entries at once: all of them or none.",
            discussion: "An entry reads ACTION/SUBJECT, e.g. SEND_MESSAGE_TO_TOPIC/UserID:abc.")
        @OptionGroup var options: AdminOptions
        @Option(help: "An entry to add (repeatable).") var grant: [String] = []
        @Option(help: "An entry to remove (repeatable).") var revoke: [String] = []
        @Flag(help: "Show the entries the changes would leave, and change nothing.") var dryRun = false
        @Argument(help: "The topic, e.g. group/<id>/chat.") var topic: String

        func run() async throws {
            let address = try ACLCommand.address(topic)
            let changes: [JSONValue] =
                try grant.map { try Self.change("grant", $0) }
                + revoke.map {
                    try Self.change("revoke", $0)
                }
            guard !changes.isEmpty else { throw ValidationError("Name at least one --grant or --revoke.") }
            let reply = try await options.client().call(
                "POST", address.path + "/acl" + (dryRun ? "?dryRun=true" : ""), body: ["changes": .array(changes)])
            print(dryRun ? "Would leave on \(address) (nothing changed):" : "Applied; \(address) now has:")
            for entry in reply.objectValue?["entries"]?.arrayValue ?? [] { print("  \(entry.stringValue ?? "")") }
        }

        static func change(_ kind: String, _ text: String) throws -> JSONValue {
            let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("An entry reads ACTION/SUBJECT, not '\(text)'.") }
            return ["change": .string(kind), "action": .string(parts[0].uppercased()), "subject": .string(parts[1])]
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an entry.")
        @OptionGroup var entry: ACLEntryArguments
        func run() async throws { try await entry.send("PUT", done: "granted \(entry.action) to \(entry.subject)") }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an entry.")
        @OptionGroup var entry: ACLEntryArguments
        func run() async throws {
            try await entry.send("DELETE", done: "revoked \(entry.action) from \(entry.subject)")
        }
    }

    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Who changed the topic's ACL, when, and how.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The topic, e.g. group/<id>/chat.") var topic: String

        func run() async throws {
            let address = try ACLCommand.address(topic)
            let reply = try await options.client().call("GET", address.path + "/acl-audit")
            var rows = [["AT (ms)", "ACTOR", "CHANGE", "ACTION", "SUBJECT"]]
            for record in reply.objects("records") {
                rows.append(
                    ["at", "actor", "change", "action", "subject"].map { key in
                        record[key].map { value in value.stringValue ?? JSONWriter.string(value) } ?? ""
                    })
            }
            print("ACL audit of \(address)")
            ACLCommand.printTable(rows)
        }
    }

    static func address(_ text: String) throws -> TopicAddress {
        guard let address = TopicAddress(parsing: text) else {
            throw ValidationError("A topic reads app/NAME, group/ID/NAME, user/ID/NAME or thing/ID/NAME.")
        }
        return address
    }

    static func printTable(_ rows: [[String]]) {
        let widths = rows.reduce(into: [Int](repeating: 0, count: rows.first?.count ?? 0)) { widths, row in
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        for row in rows {
            let line = row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(
                separator: "  ")
            print(line.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression))
        }
    }
}
