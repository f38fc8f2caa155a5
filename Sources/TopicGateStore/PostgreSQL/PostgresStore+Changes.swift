import Logging
import PostgresNIO
import TopicGateCore

/// Changes travel as PostgreSQL notifications on one channel, sent inside the changing
/// transaction: PostgreSQL delivers them to every listening gateway when (and only if) it commits.
extension PostgresStore: StoreChangeFeed {
    static let changeChannel = "topicgate_changes"

    static func notify(_ connection: PostgresConnection, _ change: StoreChange) async throws {
        try await connection.run("SELECT pg_notify(\(changeChannel), \(change.payload))")
    }

    public func followChanges(_ handle: @escaping @Sendable (StoreChange) -> Void) async {
        var attempt = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: try location.connectionConfiguration(), id: 0, logger: logger)
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: Self.changeChannel) { notifications in
                    attempt = 0
                    handle(.unknown)
                    for try await notification in notifications {
                        handle(StoreChange(payload: notification.payload))
                    }
                }
            } catch {
                if Task.isCancelled { return }
                attempt += 1
                if attempt == 1 {
                    logger.warning("Lost the change feed; reconnecting", metadata: ["error": "\(error)"])
                }
            }
            try? await Task.sleep(for: .milliseconds(min(100 * attempt, 2_000)))
        }
    }
}
