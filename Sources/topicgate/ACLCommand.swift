import ArgumentParser
import Foundation
import TopicGateCore

/// `topicgate acl list|explain|grant|revoke|audit <topic>`: operate on a running server's
/// topic ACLs. A topic reads `app/news`, `group/<id>/chat`, `user/<id>/inbox`,
/// `thing/<id>/alerts`.
struct ACLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acl", abstract: "Inspect, explain and change topic ACLs on a running server.",
        subcommands: [List.self, Explain.self, Grant.self, Revoke.self, Audit.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The topic's entries, defaults marked.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The topic, e.g. group/<id>/chat.") var topic: String

        func run() async throws {
            let address = try ACLCommand.address(topic)
            let reply = try await options.client().call("GET", address.path + "/acl?detailed=true")
            var rows = [["ACTION", "SUBJECT", "DEFAULT", "REMOVABLE"]]
            for entry in reply.objectValue?["entries"]?.arrayValue?.compactMap(\.objectValue) ?? [] {
                rows.append([
                    entry["action"]?.stringValue ?? "", entry["subject"]?.stringValue ?? "",
                    entry["default"] == true ? "default" : "granted", entry["removable"] == true ? "yes" : "no",
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
            for record in reply.objectValue?["records"]?.arrayValue?.compactMap(\.objectValue) ?? [] {
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
