public import TopicGateCore

/// Things and their owners. Vendor thing IDs are unique within an app; a write that would
/// break that throws `THING_ALREADY_EXISTS`.
public protocol ThingStore: Sendable {
    func insertThing(_ thing: Thing) async throws
    func thing(appID: AppID, reference: ThingReference) async throws -> Thing?
    /// Lays `fields` over the thing's fields (the others keep theirs, whatever changed them since
    /// the thing was read) and sets its modification time; nothing else of the thing is written.
    func updateThingFields(appID: AppID, id: ThingID, _ fields: ThingFields, at: UnixMillis) async throws
    /// Sets the thing's vendor thing ID and password hash (a password or vendor-thing-ID change);
    /// nothing else of the thing is written. `THING_ALREADY_EXISTS` when the vendor thing ID is
    /// another's.
    func updateThingCredentials(appID: AppID, id: ThingID, vendorThingID: String, passwordHash: String, at: UnixMillis)
        async throws
    /// Deletes the thing with its tokens and ownerships.
    func deleteThing(appID: AppID, id: ThingID) async throws -> Bool
    /// False when the owner was an owner already.
    func addOwner(appID: AppID, thing: ThingID, owner: Owner) async throws -> Bool
    /// False when it was not an owner.
    func removeOwner(appID: AppID, thing: ThingID, owner: Owner) async throws -> Bool
    func owners(appID: AppID, thing: ThingID) async throws -> Set<Owner>
    /// The things `owner` owns itself (a group's, or a user's without those of its groups).
    func things(appID: AppID, ownedBy owner: Owner) async throws -> [ThingID]
}
