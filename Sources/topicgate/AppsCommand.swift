import ArgumentParser
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// `topicgate apps create|list|reset-secret`: manage apps in the data directory.
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "Create and list apps.",
        subcommands: [Create.self, List.self, ResetSecret.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an app and print its credentials.")
        @OptionGroup var options: StoreOptions
        @Option(help: "A name for the app.") var name: String = "app"

        func run() async throws {
            let store = try await openStore(configuration: try options.configuration())
            let created = try await AppRegistry(store: store).create(name: name)
            AppsCommand.printCredentials(created.app, secret: created.clientSecret)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List apps (client secrets are not kept).")
        @OptionGroup var options: StoreOptions

        func run() async throws {
            let store = try await openStore(configuration: try options.configuration())
            print("appID\tappKey\tclientID\tname")
            for app in try await store.apps() {
                print("\(app.id.rawValue)\t\(app.key)\t\(app.clientID)\t\(app.name)")
            }
        }
    }

    struct ResetSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-secret", abstract: "Make a new client secret (revokes admin tokens).")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The app's ID.") var appID: String

        func run() async throws {
            let store = try await openStore(configuration: try options.configuration())
            guard let credentials = try await AppRegistry(store: store).resetSecret(appID: AppID(appID)) else {
                throw ValidationError("No app \(appID).")
            }
            AppsCommand.printCredentials(credentials.app, secret: credentials.clientSecret)
        }
    }

    static func printCredentials(_ app: App, secret: String) {
        print(
            """
            appID:        \(app.id.rawValue)
            appKey:       \(app.key)
            clientID:     \(app.clientID)
            clientSecret: \(secret)
            """)
    }
}
