import Foundation
import GRDB
import HTTPTypes
import MQTTBridge
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore

@testable import TopicGateStore

/// Upgrades as an operator meets them: a database written by each earlier schema version, on
/// SQLite and on PostgreSQL, opened by this gateway. Each fixture is made by running the old
/// migrations only, then filled with the rows a real gateway wrote (every column that version
/// had, in every table it had); the gateway must migrate it and serve it: the users log in,
/// the device gets the push that was waiting in the outbox and new ones, the ACLs decide as
/// before.
@Suite("Schema upgrades", .serialized)
struct SchemaUpgradeTests {
    /// What the reference gateway wrote, and what the checks need of it.
    struct Reference {
        let world: PushWorld
        let ann: (id: String, token: String)
        let bob: (id: String, token: String)
        let eve: (id: String, token: String)
        let topic: String
        let bobDevice: PushWorld.Endpoint
        /// The operator's explanation of Eve's refused send, as the reference answered it.
        let explanation: String
    }

    /// A gateway on the engine of `arguments` writes into every table: users (one with a
    /// password), a group and its topic, a subscription, an ACL grant and its audit, a device,
    /// a thing with its owner, a command with results, a state, a gateway relaying for that thing, an
    /// account link, a failed login;
    /// then, with the broker stopped, a push that waits in the outbox. The gateway is stopped.
    static func reference(arguments: [String]) async throws -> Reference {
        let world = try await PushWorld.started(arguments: arguments + ["--outbox-lease", "1"])
        let ann = try await world.normalUser("ann", password: "ann-password")
        let bob = try await world.pseudoUser()
        let eve = try await world.pseudoUser()
        let topic = try await world.groupTopic(owner: ann.token, members: [bob.id])
        try await world.subscribe(topic, userID: bob.id, token: bob.token)
        try await world.call(.put, "\(topic)/acl/SUBSCRIBE_TO_TOPIC/UserID:\(eve.id)", token: ann.token).expect(
            .noContent)
        let bobDevice = try await world.install(token: bob.token)
        let thing = try await world.onboardThing("upgrade-lamp", owner: ann)
        let base = "/thing-if/apps/\(world.appID)/targets/thing:\(thing.id)"
        let command = try await world.call(
            .post, "\(base)/commands", token: ann.token, contentType: "application/json",
            json: ["actions": [["turnPower": ["power": true]]], "issuer": .string("user:\(ann.id)")]
        ).expect(.created).require("commandID")
        try await world.call(
            .put, "\(base)/commands/\(command)/action-results", token: thing.token, contentType: "application/json",
            json: ["actionResults": [["turnPower": ["succeeded": true]]]]
        ).expect(.noContent)
        try await world.call(
            .put, "\(base)/states", token: thing.token, contentType: "application/json", json: ["power": true]
        ).expect(.noContent)
        let hub = try await world.call(
            .post, "/thing-if/apps/\(world.appID)/onboardings", token: ann.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            json: [
                "vendorThingID": "upgrade-hub", "thingPassword": "hub-secret", "layoutPosition": "GATEWAY",
                "owner": .string("user:\(ann.id)"),
            ]
        ).expect(.ok).require("thingID")
        try await world.call(.put, "\(world.app)/things/\(hub)/end-nodes/\(thing.id)", token: ann.token).expect(
            .noContent)
        try await world.call(
            .post, "\(world.app)/users/me/links", token: bob.token,
            json: ["provider": "icloud", "externalID": "_upgrade", "secret": "0123456789abcdef0123456789abcdef"]
        ).expect(.created)
        try await world.call(.post, "\(world.app)/oauth2/token", json: ["username": "ann", "password": "wrong"])
        let admin = try await world.adminToken()
        let explanation = try await world.call(
            .get, "\(topic)/acl-explain?principal=user:\(eve.id)&action=SEND_MESSAGE_TO_TOPIC", token: admin
        ).expect(.ok).text
        try await world.send(topic, token: eve.token).expect(.forbidden)
        try await world.broker.stop()
        try await world.push(topic, token: ann.token, message: "waiting in the outbox")
        try await Task.sleep(for: .milliseconds(300))
        _ = try await world.server.stop(signal: SIGTERM)
        return Reference(
            world: world, ann: ann, bob: bob, eve: eve, topic: topic, bobDevice: bobDevice, explanation: explanation)
    }

    /// A gateway on the fixture of `arguments` (with its data folder), on the reference's
    /// broker: checks that it serves what the reference wrote, as far as `tables` held it.
    static func expectServed(_ reference: Reference, tables: Set<String>, dataDirectory: String, arguments: [String])
        async throws
    {
        let world = reference.world
        try await world.broker.start()
        // Bob's device, connected before the gateway starts (its credentials are signed, not stored).
        var device: MQTTClient?
        var received: ReceivedMessages?
        if tables.contains("installations") {
            let connected = try await world.connectedDevice(reference.bobDevice)
            device = connected
            received = ReceivedMessages(connected)
        }
        let gateway = ServerProcess(
            dataDirectory: dataDirectory,
            arguments: [
                "--broker", "mqtt://127.0.0.1:\(world.broker.port)", "--mqtt-secret-file", world.broker.secretFile,
            ]
                + arguments, credentialsOf: world.server)
        try await gateway.start()
        defer { device?.shutdown() }
        // The users log in: with a password, and with the token they had.
        _ = try await gateway.login("ann", password: "ann-password")
        try await gateway.call(.get, "\(gateway.app)/users/me", token: reference.bob.token).expect(.ok)
        try await gateway.call(.get, "\(gateway.app)/users/me", token: reference.eve.token).expect(.ok)
        guard tables.contains("topics") else {
            _ = try await gateway.stop(signal: SIGTERM)
            try await world.broker.stop()
            return
        }
        // The ACLs decide as before, for the same reasons.
        let admin = try await gateway.adminToken()
        let explanation = try await gateway.call(
            .get, "\(reference.topic)/acl-explain?principal=user:\(reference.eve.id)&action=SEND_MESSAGE_TO_TOPIC",
            token: admin
        ).expect(.ok).text
        #expect(explanation == reference.explanation)
        try await gateway.send(reference.topic, token: reference.eve.token).expect(.forbidden)
        if tables.contains("outbox"), let received {
            // The push that waited in the outbox reaches the device, then a new one.
            #expect(
                await received.wait(for: 1, timeout: .seconds(20)).first?.object["msg"]?.stringValue
                    == "waiting in the outbox")
            try await gateway.send(reference.topic, token: reference.bob.token, message: "after the upgrade").expect(
                .created)
            #expect(await received.wait(for: 2).last?.object["msg"]?.stringValue == "after the upgrade")
        } else {
            // Before installations were kept: the device installs again and receives.
            let endpoint = try await gateway.install(token: reference.bob.token)
            let fresh = try await gateway.connectedDevice(endpoint)
            let inbox = ReceivedMessages(fresh)
            try await gateway.send(reference.topic, token: reference.bob.token, message: "after the upgrade").expect(
                .created)
            #expect(await inbox.wait(for: 1).first?.object["msg"]?.stringValue == "after the upgrade")
            fresh.shutdown()
        }
        _ = try await gateway.stop(signal: SIGTERM)
        try await world.broker.stop()
    }

    @Test("A SQLite database of every earlier schema version migrates and serves its data")
    func sqlite() async throws {
        let reference = try await Self.reference(arguments: [])
        let referenceFile = reference.world.directory + "/topicgate.sqlite"
        let versions = SQLiteSchema.migrator.migrations
        #expect(versions.count >= 10)
        for version in versions.dropLast() {
            let directory = reference.world.directory + "-\(version)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let fixture = try DatabaseQueue(path: directory + "/topicgate.sqlite")
            try SQLiteSchema.migrator.migrate(fixture, upTo: version)
            let tables = try await fixture.writeWithoutTransaction { db -> Set<String> in
                var tables: Set<String> = []
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                try db.execute(sql: "ATTACH DATABASE ? AS reference", arguments: [referenceFile])
                for table in try String.fetchAll(
                    db,
                    sql: "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                        + "AND name <> 'grdb_migrations'")
                {
                    tables.insert(table)
                    let columns = try Row.fetchAll(db, sql: "PRAGMA main.table_info(\(table))").map {
                        "\"\($0["name"] as String)\""
                    }.joined(separator: ", ")
                    try db.execute(
                        sql: "INSERT INTO main.\(table) (\(columns)) SELECT \(columns) FROM reference.\(table)")
                    let rows = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM main.\(table)") ?? 0
                    let written = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reference.\(table)") ?? 0
                    #expect(rows == written, "\(version): \(table)")
                }
                try db.execute(sql: "DETACH DATABASE reference")
                return tables
            }
            try fixture.close()
            try await Self.expectServed(reference, tables: tables, dataDirectory: directory, arguments: [])
        }
        try? FileManager.default.removeItem(atPath: reference.world.directory)
    }

    /// Runs `sql` (a file of statements) or a query on the database at `url` with psql; its output.
    static func psql(_ url: String, file: String? = nil, query: String? = nil) async throws -> String {
        let output = Pipe()
        let process = try ChildProcess.spawn(
            executable: "/usr/bin/psql",
            arguments: ["-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", url]
                + (file.map { ["-f", $0] } ?? []) + (query.map { ["-c", $0] } ?? []),
            output: output.fileHandleForWriting.fileDescriptor, error: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let text = await ServerProcess.readToEnd(output.fileHandleForReading)
        let status = await process.exit()
        guard status == 0 else { throw TestFailure("psql failed (\(status)): \(text.prefix(2000))") }
        return text
    }

    @Test("A PostgreSQL database of every earlier schema version migrates and serves its data")
    func postgres() async throws {
        let referenceURL = try await TestPostgres.shared.newDatabase()
        let reference = try await Self.reference(arguments: ["--database", referenceURL])
        let versions = PostgresSchema.migrations
        #expect(versions.count >= 4)
        for count in 1..<versions.count {
            let url = try await TestPostgres.shared.newDatabase()
            // The old migrations only, recorded as that version's gateway recorded them.
            var sql = "CREATE TABLE schema_migrations (version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL);\n"
            for migration in versions.prefix(count) {
                sql += migration.sql + ";\nINSERT INTO schema_migrations VALUES ('\(migration.version)', now());\n"
            }
            let schemaFile = reference.world.directory + "-schema-\(count).sql"
            try sql.write(toFile: schemaFile, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: schemaFile) }
            _ = try await Self.psql(url, file: schemaFile)
            // The reference's rows, each as JSON, into the columns the old tables have.
            let tables = Set(
                try await Self.psql(
                    url,
                    query: "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                        + "AND tablename <> 'schema_migrations'"
                ).split(separator: "\n").map(String.init))
            var rows = "SET session_replication_role = replica;\n"
            for table in tables.sorted() {
                let lines = try await Self.psql(referenceURL, query: "SELECT to_jsonb(t)::text FROM \(table) t")
                for line in lines.split(separator: "\n") {
                    rows +=
                        "INSERT INTO \(table) OVERRIDING SYSTEM VALUE SELECT * FROM jsonb_populate_record(NULL::\(table), "
                        + "$json$\(line)$json$::jsonb);\n"
                }
            }
            // Identity columns continue after the copied rows.
            for identity in try await Self.psql(
                url,
                query: "SELECT table_name || ' ' || column_name FROM information_schema.columns "
                    + "WHERE table_schema = 'public' AND is_identity = 'YES'"
            ).split(separator: "\n") {
                let parts = identity.split(separator: " ")
                rows +=
                    "SELECT setval(pg_get_serial_sequence('\(parts[0])', '\(parts[1])'), "
                    + "COALESCE((SELECT max(\(parts[1])) FROM \(parts[0])), 0) + 1, false);\n"
            }
            let rowsFile = reference.world.directory + "-rows-\(count).sql"
            try rows.write(toFile: rowsFile, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: rowsFile) }
            _ = try await Self.psql(url, file: rowsFile)
            for table in tables {
                let copied = try await Self.psql(url, query: "SELECT COUNT(*) FROM \(table)")
                let written = try await Self.psql(referenceURL, query: "SELECT COUNT(*) FROM \(table)")
                #expect(copied == written, "\(versions[count - 1].version): \(table)")
            }
            let directory = reference.world.directory + "-pg-\(count)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try await Self.expectServed(
                reference, tables: tables, dataDirectory: directory, arguments: ["--database", url])
        }
        try? FileManager.default.removeItem(atPath: reference.world.directory)
    }
}
