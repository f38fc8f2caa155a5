import ArgumentParser
import Foundation
import TopicGateCore

/// `topicgate users cleanup|disable|enable`: user maintenance on a running server.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Clean up idle pseudo users; disable or enable a user.",
        subcommands: [Cleanup.self, Disable.self, Enable.self])

    struct Cleanup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove pseudo users idle for N days (never normal users, never linked ones).")
        @OptionGroup var options: AdminOptions
        @Option(help: "Days without a token use.") var idleDays: Int = 90
        @Flag(help: "Only show what would be removed.") var dryRun = false

        func run() async throws {
            let reply = try await options.client().call(
                "POST", "/pseudo-user-cleanup", body: ["idleDays": .int(Int64(idleDays)), "dryRun": .bool(dryRun)])
            let users = reply.objects("users")
            print(
                "\(dryRun ? "Would remove" : "Removed") \(users.count) pseudo user(s) idle for \(idleDays) days or "
                    + "more."
            )
            guard !users.isEmpty else { return }
            var rows = [["USER", "CREATED", "LAST SEEN"]]
            for user in users {
                rows.append([
                    user["userID"]?.stringValue ?? "", Self.date(user["createdAt"]), Self.date(user["lastSeenAt"]),
                ])
            }
            ACLCommand.printTable(rows)
        }

        static func date(_ value: JSONValue?) -> String {
            guard let millis = value?.intValue else { return "" }
            return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(millis) / 1000))
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Refuse the user's tokens and kick its devices.")
        @OptionGroup var user: UserStatusArguments
        func run() async throws { try await user.set(disabled: true, done: "its devices were disconnected") }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Accept the user's tokens again.")
        @OptionGroup var user: UserStatusArguments
        func run() async throws {
            try await user.set(disabled: false, done: "its devices install again to receive pushes")
        }
    }
}
