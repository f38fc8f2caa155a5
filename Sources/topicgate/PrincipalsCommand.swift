import ArgumentParser
import Foundation
import TopicGateCore

/// `topicgate principals search [TEXT]` and `topicgate principals show user:ID|thing:ID|group:ID`:
/// the console's principals pages, from the same admin API.
struct PrincipalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "principals", abstract: "Find users, groups and things; what one user or thing may do.",
        subcommands: [Search.self, Show.self])

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Users by ID, login name, email, phone or display name; groups by ID or name; things by ID or vendor "
                + "thing ID.")
        @OptionGroup var options: AdminOptions
        @Option(help: "At most this many of each kind (1 to 1000).") var limit = 50
        @Argument(help: "What to look for.") var text: String

        func run() async throws {
            let query = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let reply = try await options.client().call("GET", "/principal-search?q=\(query)&limit=\(limit)")
            var rows = [["PRINCIPAL", "NAME", "DETAIL", "STATUS"]]
            for principal in reply.objects("principals") {
                rows.append([
                    principal["principal"]?.stringValue ?? "", principal["name"]?.stringValue ?? "",
                    principal["detail"]?.stringValue ?? "", principal["disabled"] == true ? "disabled" : "enabled",
                ])
            }
            ACLCommand.printTable(rows)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "A user's groups and things (a thing's owners, gateway or end nodes), its devices, and the topics it "
                + "may use; a group's members, things and topics.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "user:ID, thing:ID or group:ID.") var principal: String

        func run() async throws {
            let reply = try await options.client().call("GET", "/principals/\(principal)/access")
            let object = reply.objectValue ?? [:]
            let name = object["name"]?.stringValue.map { " (\($0))" } ?? ""
            if object["kind"] == "group" { return Self.printGroup(reply, principal + name) }
            print("\(principal)\(name): \(object["disabled"] == true ? "disabled" : "enabled")")
            for group in reply.objects("groups") {
                let role = group["owner"] == true ? "owner" : "member"
                print("  \(role) of group \(group["name"]?.stringValue ?? "") (\(group["groupID"]?.stringValue ?? ""))")
            }
            for thing in object["ownedThings"]?.arrayValue ?? [] { print("  owns thing \(thing.stringValue ?? "")") }
            for owner in object["owners"]?.arrayValue ?? [] { print("  owned by \(owner.stringValue ?? "")") }
            if case .object(let gateway)? = object["gateway"] {
                print(
                    "  end node of gateway \(gateway["thingID"]?.stringValue ?? ""): "
                        + Self.connection(gateway["online"]))
            }
            for node in reply.objects("endNodes") {
                print(
                    "  relays for end node \(node["thingID"]?.stringValue ?? "") "
                        + "(\(node["vendorThingID"]?.stringValue ?? "")): " + Self.connection(node["online"]))
            }
            if object["moreEndNodes"] == true { print("  (only the first end nodes are listed)") }
            for device in reply.objects("installations") {
                let seen = device["lastSeen"].map { ", last seen \(UsersCommand.Cleanup.date($0))" } ?? ""
                let state =
                    device["online"] == true ? "online" : "offline" + seen
                let deleted = device["revokedAt"].map { "deleted \(UsersCommand.Cleanup.date($0)), " } ?? ""
                print(
                    "  device \(device["installationID"]?.stringValue ?? "") (\(device["deviceType"]?.stringValue ?? "")): "
                        + deleted + state)
            }
            for (key, verb) in [("maySubscribe", "may subscribe to"), ("maySend", "may send to")] {
                for topic in reply.objects(key) {
                    print(
                        "  \(verb) \(topic["scope"]?.stringValue ?? "")/\(topic["topicID"]?.stringValue ?? ""): "
                            + (topic["reason"]?.stringValue ?? ""))
                }
            }
            if object["truncated"] == true { print("  (only the first topics were checked)") }
        }

        /// What a gateway reported of an end node's connection.
        static func connection(_ online: JSONValue?) -> String {
            switch online {
            case .bool(true)?: "online"
            case .bool(false)?: "offline"
            default: "connection not reported"
            }
        }

        static func printGroup(_ reply: JSONValue, _ title: String) {
            let object = reply.objectValue ?? [:]
            print("\(title): \(object["memberCount"]?.intValue ?? 0) members")
            for member in reply.objects("members") {
                let name = member["name"]?.stringValue.map { " (\($0))" } ?? ""
                let state = member["disabled"] == true ? ", disabled" : ""
                print(
                    "  \(member["owner"] == true ? "owner" : "member") \(member["principal"]?.stringValue ?? "")"
                        + name + state)
            }
            for thing in object["ownedThings"]?.arrayValue ?? [] { print("  owns thing \(thing.stringValue ?? "")") }
            for topic in reply.objects("scopeTopics") { print("  has topic \(topic["topicID"]?.stringValue ?? "")") }
            for topic in reply.objects("namedIn") {
                let actions = (topic["actions"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")
                print(
                    "  named in \(topic["scope"]?.stringValue ?? "")/\(topic["topicID"]?.stringValue ?? ""): "
                        + actions)
            }
            if object["truncated"] == true { print("  (only the first topics were checked)") }
        }
    }
}
