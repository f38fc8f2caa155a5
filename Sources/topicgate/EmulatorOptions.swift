import ArgumentParser
import Foundation

/// Where the emulators find the server and which app they belong to.
struct EmulatorOptions: ParsableArguments {
    @Option(help: "The server's base URL (env TOPICGATE_URL; default http://127.0.0.1:8080).")
    var server: String?
    @Option(help: "The app's ID, as `make run` printed it (env TOPICGATE_APP_ID).")
    var appID: String?

    func resolved() throws -> (server: URL, appID: String) {
        let environment = ProcessInfo.processInfo.environment
        guard let url = URL(string: server ?? environment["TOPICGATE_URL"] ?? "http://127.0.0.1:8080") else {
            throw ValidationError("The server URL is not valid.")
        }
        guard let appID = appID ?? environment["TOPICGATE_APP_ID"] else {
            throw ValidationError("Give the app's ID: --app-id (or TOPICGATE_APP_ID).")
        }
        return (url, appID)
    }
}
