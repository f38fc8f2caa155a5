import Foundation
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

/// The databases the store contract runs against: each test runs once on a new SQLite file and
/// once on a new database of a real PostgreSQL server that the test process starts itself.
enum StoreEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// Where a new, empty store is: a file path or a `postgres://` URL. A SQLite file is a
    /// migrated copy (see `MigratedSQLite`) unless `fromNothing`: then no file is there yet.
    func newLocation(fromNothing: Bool = false) async throws -> String {
        switch self {
        case .sqlite:
            let path = TestFolder.url
                .appendingPathComponent("store-\(UUID().uuidString).sqlite").path
            if !fromNothing { try MigratedSQLite.place(at: path) }
            return path
        case .postgres:
            return try await TestPostgres.shared.newDatabase()
        }
    }

    /// Opens (migrating) the store at `location`, as the gateway does.
    func open(_ location: String) async throws -> any Store {
        switch self {
        case .sqlite:
            return try SQLiteStore(path: location)
        case .postgres:
            // A test run starts hundreds of tests at once on two cores: a connection may wait
            // far longer for a thread than a gateway's requests should.
            return try await PostgresStore.open(
                try #require(PostgresLocation(url: location)), leaseTimeout: .seconds(60))
        }
    }

    /// A new store holding one app, `appID`.
    func newStore(appID: AppID) async throws -> any Store {
        let store = try await open(try await newLocation())
        try await store.insertApp(
            App(id: appID, key: "key", clientID: "client", clientSecretHash: "hash", name: "test", createdAt: 1))
        return store
    }
}
