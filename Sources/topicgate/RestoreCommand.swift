import ArgumentParser
import TopicGateServer
import TopicGateStore

/// `topicgate restore FILE`: a backup put back in place of the SQLite database, with every
/// gateway of that data folder stopped.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup made by `topicgate backup` back in place of the SQLite database (gateway stopped).",
        discussion: """
            Refuses a file that is not a TopicGate database or that a newer TopicGate wrote, and refuses while a \
            gateway serves the data folder. The database it replaces is kept as topicgate.sqlite.before-restore. \
            An older backup is migrated when the gateway starts; messages that were waiting in its outbox are \
            delivered then.
            """)

    @OptionGroup var options: StoreOptions
    @Argument(help: "A file written by `topicgate backup`.") var file: String

    func run() async throws {
        let configuration = try options.sqliteConfiguration(command: "restore", tool: "pg_restore")
        guard let lock = try ServingLock.exclusive(configuration.dataDirectory) else {
            throw CommandFailure(
                "A gateway is serving \(configuration.dataDirectory); stop it before restoring (backups need no stop).")
        }
        defer { withExtendedLifetime(lock) {} }
        do {
            let contents = try SQLiteBackup.restore(file, to: configuration.databasePath)
            try DataDirectory.restrictFile(configuration.databasePath)
            print(
                "Restored \(file) to \(configuration.databasePath): \(contents.apps) app(s), \(contents.users) user(s), "
                    + "schema \(contents.migrations.last ?? "none")"
                    + (contents.isCurrent ? "." : " (migrated when the gateway starts)."))
        } catch let failure as SQLiteBackup.Failure {
            throw CommandFailure(failure.description)
        }
    }
}
