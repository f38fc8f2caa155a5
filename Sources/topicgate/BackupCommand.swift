import ArgumentParser
import TopicGateServer
import TopicGateStore

/// `topicgate backup FILE`: a consistent copy of the SQLite database, taken while the gateway
/// serves.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database to FILE while the gateway serves (SQLite's online backup).",
        discussion: """
            The copy is one consistent snapshot: every write the gateway had committed when the copy began is in \
            it. A PostgreSQL database is backed up with pg_dump or by point-in-time recovery (docs/operations.md).
            """)

    @OptionGroup var options: StoreOptions
    @Argument(help: "The file to write (replaced only once the copy is whole).") var file: String

    func run() async throws {
        let configuration = try options.sqliteConfiguration(command: "backup", tool: "pg_dump -Fc")
        do {
            let contents = try SQLiteBackup.backup(databaseAt: configuration.databasePath, to: file)
            print(
                "Backed up \(configuration.databasePath) to \(file): \(contents.apps) app(s), \(contents.users) "
                    + "user(s), schema \(contents.migrations.last ?? "none").")
        } catch let failure as SQLiteBackup.Failure {
            throw CommandFailure(failure.description)
        }
    }
}
