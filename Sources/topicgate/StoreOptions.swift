import ArgumentParser
import Foundation
import TopicGateServer
import TopicGateStore

/// Where the data is: the SQLite file of a data folder, or a PostgreSQL database. The only
/// flags of the commands that open the store themselves (`apps`, `backup`, `restore`); `serve`
/// takes them with its own.
struct StoreOptions: ParsableArguments {
    @Option(help: "Folder of the SQLite file (env TOPICGATE_DATA_DIR; default ./data).")
    var dataDir: String?

    @Option(
        help: ArgumentHelp(
            "PostgreSQL database shared by several gateways, postgres://user:password@host:5432/name?sslmode="
                + "disable|prefer|require (env TOPICGATE_DATABASE_URL; default: the SQLite file in --data-dir).",
            valueName: "url"))
    var database: String?

    /// The embedded defaults with the data folder and the database of these flags.
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> ServerConfiguration
    {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = dataDir ?? environment["TOPICGATE_DATA_DIR"] ?? configuration.dataDirectory
        if let url = database ?? environment["TOPICGATE_DATABASE_URL"], !url.isEmpty {
            guard let location = PostgresLocation(url: url) else {
                throw ValidationError(
                    "The database is a postgres://user:password@host:port/name URL (sslmode disable, prefer or "
                        + "require), not '\(url.prefix(40))…'.")
            }
            configuration.database = location
        }
        return configuration
    }

    /// The configuration of a command that works on the SQLite file itself (`backup`,
    /// `restore`): refused for PostgreSQL, whose own `tool` does that work.
    func sqliteConfiguration(command: String, tool: String) throws -> ServerConfiguration {
        let configuration = try configuration()
        guard configuration.database == nil else {
            throw ValidationError(
                "topicgate \(command) works on the SQLite file; for PostgreSQL use \(tool) (docs/operations.md).")
        }
        return configuration
    }
}
