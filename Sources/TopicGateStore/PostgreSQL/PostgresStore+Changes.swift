import Logging
internal import PostgresNIO
import TopicGateCore

/// Changes travel as PostgreSQL notifications on one channel, sent inside the changing
/// transaction: PostgreSQL delivers them to every listening gateway when (and only if) it commits.
extension PostgresStore: StoreChangeFeed {
    static let changeChannel = "topicgate_changes"

    static func notify(_ connection: PostgresConnection, _ change: StoreChange) async throws {
        try await connection.run(ChangeNotice(channel: changeChannel, change: change))
        // This gateway's topic cache is told before the write returns, not by the feed.
        switch change {
        case .topic(let app, let address): TransactionChanges.current?.note(.topic(app, address))
        case .principalDeleted: TransactionChanges.current?.note(.all)
        default: break
        }
    }

    public func sendHeartbeat() async throws {
        try await write { connection in try await Self.notify(connection, .heartbeat) }
    }

    public func followChanges(silence: Duration, _ handle: @escaping @Sendable (StoreChange) -> Void) async {
        var attempt = 0
        let ownNotices = self.ownNotices
        while !Task.isCancelled {
            let heard = FeedClock()
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: try feedLocation.connectionConfiguration(), id: 0, logger: logger)
                defer { Task { try? await connection.close() } }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await connection.listen(on: Self.changeChannel) { notifications in
                            heard.began()
                            handle(.unknown)
                            for try await notification in notifications {
                                heard.mark()
                                // The echo of this gateway's own change: heard, and nothing to drop.
                                let payload = notification.payload
                                handle(ownNotices.isEcho(payload) ? .heartbeat : StoreChange(payload: payload))
                            }
                        }
                    }
                    group.addTask {
                        // A connection that went silent is closed, which ends the listening too.
                        while heard.sinceLast < silence { try await Task.sleep(for: silence / 4) }
                        try? await connection.close()
                        throw FeedSilent()
                    }
                    try await group.next()
                    group.cancelAll()
                }
            } catch {
                if Task.isCancelled { return }
                if heard.hasBegun { attempt = 0 }
                attempt += 1
                if attempt == 1 {
                    logger.warning("Lost the change feed; reconnecting", metadata: ["error": "\(error)"])
                }
            }
            try? await Task.sleep(for: .milliseconds(min(100 * attempt, 2_000)))
        }
    }
}

/// The feed carried nothing, not even a heartbeat, for longer than it may.
struct FeedSilent: Error, CustomStringConvertible {
    var description: String { "the change feed carried nothing for too long" }
}
