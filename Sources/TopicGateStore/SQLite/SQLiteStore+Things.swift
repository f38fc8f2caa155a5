import GRDB
public import TopicGateCore

extension SQLiteStore: ThingStore {
    public func insertThing(_ thing: Thing) async throws {
        try await write(conflict: { _ in StoredForm.thingConflict(thing.vendorThingID) }) { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO things (app_id, thing_id, vendor_thing_id, password_hash, fields, disabled,
                        created_at, modified_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                thing.appID.rawValue, thing.id.rawValue, thing.vendorThingID, thing.passwordHash,
                JSONWriter.string(.object(thing.fields.values)), thing.disabled, thing.createdAt, thing.modifiedAt,
            ])
        }
    }

    public func thing(appID: AppID, reference: ThingReference) async throws -> Thing? {
        let (column, value): (String, String)
        switch reference {
        case .id(let id): (column, value) = ("thing_id", id.rawValue)
        case .vendorThingID(let vendorThingID): (column, value) = ("vendor_thing_id", vendorThingID)
        }
        return try await readOneStatement { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM things WHERE app_id = ? AND \(column) = ?"),
                arguments: [appID.rawValue, value]
            ).map(Self.thing)
        }
    }

    public func updateThingFields(appID: AppID, id: ThingID, _ fields: ThingFields, at: UnixMillis) async throws {
        try await write { db in
            try db.cachedStatement(
                sql:
                    "UPDATE things SET fields = json_patch(fields, ?), modified_at = ? WHERE app_id = ? AND thing_id = ?"
            ).execute(arguments: [JSONWriter.string(.object(fields.values)), at, appID.rawValue, id.rawValue])
        }
    }

    public func updateThingCredentials(
        appID: AppID, id: ThingID, vendorThingID: String, passwordHash: String, at: UnixMillis
    ) async throws {
        try await write(conflict: { _ in StoredForm.thingConflict(vendorThingID) }) { db in
            try db.cachedStatement(
                sql: """
                    UPDATE things SET vendor_thing_id = ?, password_hash = ?, modified_at = ?
                    WHERE app_id = ? AND thing_id = ?
                    """
            ).execute(arguments: [vendorThingID, passwordHash, at, appID.rawValue, id.rawValue])
        }
    }

    public func deleteThing(appID: AppID, id: ThingID) async throws -> Bool {
        // Its topics and every entry naming it are gone.
        defer { topicsChanged(.all) }
        return try await write { db in
            try db.cachedStatement(
                sql: "DELETE FROM tokens WHERE app_id = ? AND principal_kind = 'thing' AND principal_id = ?"
            ).execute(arguments: [appID.rawValue, id.rawValue])
            try Self.deleteTopics(of: .thing(id), db, appID: appID.rawValue)
            try db.cachedStatement(sql: "DELETE FROM things WHERE app_id = ? AND thing_id = ?").execute(arguments: [
                appID.rawValue, id.rawValue,
            ])
            return db.changesCount > 0
        }
    }

    public func addOwner(appID: AppID, thing: ThingID, owner: Owner) async throws -> Bool {
        let (kind, id) = StoredForm.columns(owner)
        return try await changesRow(
            "INSERT OR IGNORE INTO thing_owners (app_id, thing_id, owner_kind, owner_id) VALUES (?, ?, ?, ?)",
            [appID.rawValue, thing.rawValue, kind, id])
    }

    public func removeOwner(appID: AppID, thing: ThingID, owner: Owner) async throws -> Bool {
        let (kind, id) = StoredForm.columns(owner)
        return try await changesRow(
            "DELETE FROM thing_owners WHERE app_id = ? AND thing_id = ? AND owner_kind = ? AND owner_id = ?",
            [appID.rawValue, thing.rawValue, kind, id])
    }

    public func owners(appID: AppID, thing: ThingID) async throws -> Set<Owner> {
        try await read { db in
            Set(
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT owner_kind, owner_id FROM thing_owners WHERE app_id = ? AND thing_id = ?"),
                    arguments: [appID.rawValue, thing.rawValue]
                ).map { row -> Owner in
                    StoredForm.owner(kind: row["owner_kind"], id: row["owner_id"])
                })
        }
    }

    public func things(appID: AppID, ownedBy owner: Owner) async throws -> [ThingID] {
        let (kind, id) = StoredForm.columns(owner)
        return try await read { db in
            try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT thing_id FROM thing_owners WHERE app_id = ? AND owner_kind = ? AND owner_id = ?
                        ORDER BY thing_id
                        """),
                arguments: [appID.rawValue, kind, id]
            ).map { ThingID($0) }
        }
    }

    static func thing(_ row: Row) throws -> Thing {
        Thing(
            id: ThingID(row["thing_id"] as String), appID: AppID(row["app_id"] as String),
            vendorThingID: row["vendor_thing_id"], passwordHash: row["password_hash"],
            fields: try ThingFields(body: JSONReader.object(Array((row["fields"] as String).utf8))),
            disabled: row["disabled"], createdAt: row["created_at"], modifiedAt: row["modified_at"])
    }
}
