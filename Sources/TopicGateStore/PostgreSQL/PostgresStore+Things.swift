internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: ThingStore {
    public func insertThing(_ thing: Thing) async throws {
        try await write(conflict: { _ in StoredForm.thingConflict(thing.vendorThingID) }) { connection in
            try await connection.run(
                """
                INSERT INTO things (app_id, thing_id, vendor_thing_id, password_hash, fields, disabled, created_at,
                    modified_at)
                VALUES (\(thing.appID), \(thing.id), \(thing.vendorThingID), \(thing.passwordHash),
                    \(JSONWriter.string(.object(thing.fields.values))), \(thing.disabled), \(thing.createdAt),
                    \(thing.modifiedAt))
                """)
        }
    }

    public func thing(appID: AppID, reference: ThingReference) async throws -> Thing? {
        switch reference {
        case .id(let id):
            return try await read { connection in
                try await connection.first(ThingByID(appID: appID, id: id)).map(Self.thing)
            }
        case .vendorThingID(let vendorThingID):
            let query: PostgresQuery =
                "SELECT * FROM things WHERE app_id = \(appID) AND vendor_thing_id = \(vendorThingID)"
            return try await read { connection in try await connection.first(query).map(Self.thing) }
        }
    }

    public func updateThingFields(appID: AppID, id: ThingID, _ fields: ThingFields, at: UnixMillis) async throws {
        try await write { connection in
            try await connection.run(
                """
                UPDATE things SET fields = (fields::jsonb || \(JSONWriter.string(.object(fields.values)))::jsonb)::text,
                    modified_at = \(at)
                WHERE app_id = \(appID) AND thing_id = \(id)
                """)
        }
    }

    public func updateThingCredentials(
        appID: AppID, id: ThingID, vendorThingID: String, passwordHash: String, at: UnixMillis
    ) async throws {
        try await write(conflict: { _ in StoredForm.thingConflict(vendorThingID) }) { connection in
            try await connection.run(
                """
                UPDATE things SET vendor_thing_id = \(vendorThingID), password_hash = \(passwordHash),
                    modified_at = \(at)
                WHERE app_id = \(appID) AND thing_id = \(id)
                """)
        }
    }

    public func deleteThing(appID: AppID, id: ThingID) async throws -> Bool {
        try await write { connection in
            try await connection.run(
                "DELETE FROM tokens WHERE app_id = \(appID) AND principal_kind = 'thing' AND principal_id = \(id)")
            try await Self.deleteTopics(of: .thing(id), connection, appID: appID)
            return try await connection.count(
                "DELETE FROM things WHERE app_id = \(appID) AND thing_id = \(id) RETURNING 1") > 0
        }
    }

    public func addOwner(appID: AppID, thing: ThingID, owner: Owner) async throws -> Bool {
        let (kind, id) = StoredForm.columns(owner)
        return try await changesRow(
            """
            INSERT INTO thing_owners (app_id, thing_id, owner_kind, owner_id) VALUES (\(appID), \(thing), \(kind), \(id))
            ON CONFLICT DO NOTHING RETURNING 1
            """)
    }

    public func removeOwner(appID: AppID, thing: ThingID, owner: Owner) async throws -> Bool {
        let (kind, id) = StoredForm.columns(owner)
        return try await changesRow(
            """
            DELETE FROM thing_owners
            WHERE app_id = \(appID) AND thing_id = \(thing) AND owner_kind = \(kind) AND owner_id = \(id) RETURNING 1
            """)
    }

    public func owners(appID: AppID, thing: ThingID) async throws -> Set<Owner> {
        try await read { connection in
            Set(
                try await connection.rows(OwnersOfThing(appID: appID, thing: thing)).map {
                    StoredForm.owner(kind: try $0("owner_kind"), id: try $0("owner_id"))
                })
        }
    }

    public func things(appID: AppID, ownedBy owner: Owner) async throws -> [ThingID] {
        let (kind, id) = StoredForm.columns(owner)
        return try await read { connection in
            try await connection.rows(
                """
                SELECT thing_id FROM thing_owners WHERE app_id = \(appID) AND owner_kind = \(kind) AND owner_id = \(id)
                ORDER BY thing_id
                """
            ).map { try $0("thing_id") }
        }
    }

    static func thing(_ row: PostgresColumns) throws -> Thing {
        Thing(
            id: try row("thing_id"), appID: try row("app_id"), vendorThingID: try row("vendor_thing_id"),
            passwordHash: try row("password_hash"),
            fields: try ThingFields(body: JSONReader.object(Array(try row("fields", as: String.self).utf8))),
            disabled: try row("disabled"), createdAt: try row("created_at"), modifiedAt: try row("modified_at"))
    }
}
