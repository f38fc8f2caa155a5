import TopicGateCore
import TopicGateStore

/// Things: registration, reading, updating, deletion, passwords and owners.
struct ThingService: Sendable {
    let store: any EndNodeStore & GroupStore & QueryStore & ThingStore & TokenStore & UserStore
    /// Passwords, tokens, revocation, audit, sign-up limits, disabling, the topic cache.
    let accounts: AccountServices
    /// Things, their owners and users' groups, kept while nothing about them changed.
    let facts: AccessFacts

    /// Registers a thing from a Cloud API body (`_vendorThingID`, `_password`, fields). With
    /// `authorize`, also issues its token.
    func register(caller: Caller, request: ThingRegistrationRequest, authorize: Bool) async throws -> (Thing, String?) {
        try await accounts.admitSignup(caller)
        let thing = try await insert(
            appID: caller.appID, vendorThingID: request.vendorThingID, password: request.password,
            fields: request.fields)
        let token = authorize ? try await accounts.tokens.issue(appID: caller.appID, principal: .thing(thing.id)) : nil
        return (thing, token)
    }

    /// Inserts a new thing; `THING_ALREADY_EXISTS` when the vendor thing ID is taken.
    func insert(appID: AppID, vendorThingID: String, password: String, fields: ThingFields) async throws -> Thing {
        let vendorThingID = try IdentityRules.vendorThingID(vendorThingID)
        let now = accounts.time.now()
        let thing = Thing(
            id: ThingID(Secrets.thingID()), appID: appID, vendorThingID: vendorThingID,
            passwordHash: try await accounts.newPasswords.hash(password, for: .thing, field: "_password"),
            fields: fields,
            createdAt: now, modifiedAt: now)
        try await store.insertThing(thing)
        return thing
    }

    func read(caller: Caller, reference: ThingReference) async throws -> Thing {
        let thing = try await find(caller: caller, reference: reference)
        try await requireManager(caller, thing, to: "read this thing")
        return thing
    }

    /// The thing as the Cloud API answers it; an end node whose gateway reported it also has
    /// Kii's `_online` and `_onlineStatusModifiedAt`.
    func json(of thing: Thing) async throws -> JSONValue {
        guard var members = thing.json.objectValue,
            let endNode = try await store.endNode(appID: thing.appID, id: thing.id), let online = endNode.online
        else { return thing.json }
        members["_online"] = .bool(online)
        if let at = endNode.onlineModifiedAt { members["_onlineStatusModifiedAt"] = at.json }
        return .object(members)
    }

    func update(caller: Caller, reference: ThingReference, fields: ThingFields) async throws -> Thing {
        var thing = try await find(caller: caller, reference: reference)
        try await requireManager(caller, thing, to: "update this thing")
        thing.fields = thing.fields.merging(fields)
        thing.modifiedAt = accounts.time.now()
        // Only the fields sent: a disable or a password change made meanwhile stands.
        try await store.updateThingFields(appID: thing.appID, id: thing.id, fields, at: thing.modifiedAt)
        return thing
    }

    /// `PUT …/things/{id}/status` by the admin: a disabled thing cannot log in, onboard or use
    /// its tokens (`THING_DISABLED`), and its devices are kicked from the broker at once. Once
    /// enabled again, it onboards (or installs) anew to get MQTT credentials.
    func setDisabled(caller: Caller, reference: ThingReference, request: StatusChangeRequest) async throws {
        try caller.requireAdmin(to: "change a thing's status")
        let thing = try await find(caller: caller, reference: reference)
        try await accounts.status.change(.thing(thing.id), request, caller: caller)
    }

    /// `POST …/things/query`: the admin queries every thing; a user only things it owns, itself
    /// or through a group, which its clauses must say (Kii's rule); things and anonymous callers
    /// may not query.
    func query(caller: Caller, request: QueryRequest) async throws -> JSONValue {
        switch caller.principal {
        case .admin: break
        case .user(let user):
            let owners = Set(try await memberGroups(caller).map(Owner.group)).union([.user(user)])
            guard request.clause.restricts(toOwners: owners) else {
                throw caller.denied(
                    "query things without limiting them to its own (a userOwners or groupOwners clause naming itself "
                        + "or its groups)")
            }
        default: throw caller.denied("query things")
        }
        let page = try await store.queryThings(appID: caller.appID, request)
        var results: [JSONValue] = []
        for thing in page.things { results.append(try await json(of: thing)) }
        var answer: [String: JSONValue] = ["results": .array(results)]
        if page.more {
            answer["nextPaginationKey"] = .string(String(try QuerySQL.offset(request.paginationKey) + request.limit))
        }
        return .object(answer)
    }

    /// Registrations by anyone but the admin count like sign-ups.

    func delete(caller: Caller, reference: ThingReference) async throws {
        let thing = try await find(caller: caller, reference: reference)
        try await requireController(caller, thing, to: "delete this thing")
        try await accounts.revocation.revoke(appID: caller.appID, .principal(.thing(thing.id)))
        _ = try await store.deleteThing(appID: caller.appID, id: thing.id)
    }

    /// Sets a new thing password and revokes the thing's other tokens and every installation
    /// not made with the caller's own token (onboarding's and the admin's too), so that
    /// whoever knew the old password keeps no MQTT credentials.
    func changePassword(caller: Caller, reference: ThingReference, request: PasswordChangeRequest) async throws {
        var thing = try await find(caller: caller, reference: reference)
        try await requireController(caller, thing, to: "change this thing's password")
        thing.passwordHash = try await accounts.newPasswords.hash(
            request.newPassword, for: .thing, field: "newPassword")
        try await replaceCredentials(caller: caller, thing)
    }

    /// `PUT …/things/{id}/vendor-thing-id`: a new vendor thing ID with a new password, by the
    /// thing itself, an owner or the admin; `THING_ALREADY_EXISTS` when another thing has that
    /// vendor thing ID. The old credentials stop working as on a password change.
    func changeVendorThingID(caller: Caller, reference: ThingReference, request: VendorThingIDChangeRequest)
        async throws
    {
        var thing = try await find(caller: caller, reference: reference)
        try await requireController(caller, thing, to: "change this thing's vendor thing ID")
        thing.passwordHash = try await accounts.newPasswords.hash(request.password, for: .thing, field: "_password")
        thing.vendorThingID = request.vendorThingID
        try await replaceCredentials(caller: caller, thing)
    }

    /// Thing-IF's thing type (set once: `THING_TYPE_ALREADY_SET` when it would change) or
    /// firmware version, by the thing itself, an owner or the admin.
    func setInformation(caller: Caller, reference: ThingReference, update: ThingInformationUpdate) async throws {
        let thing = try await find(caller: caller, reference: reference)
        try await requireManager(caller, thing, to: "change this thing's \(update.field.rawValue)")
        let current = thing.fields.values[update.field.thingField]?.stringValue
        if update.field == .thingType, let current, current != update.value {
            throw KiiError(
                .thingTypeAlreadySet, "The thing's type is \(current) already; a thing type is set once.",
                context: ["thingType": .string(current)])
        }
        guard current != update.value else { return }
        var changed = ThingFields()
        try changed.set(update.field.thingField, update.value)
        try await store.updateThingFields(appID: thing.appID, id: thing.id, changed, at: accounts.time.now())
    }

    /// The thing's type or firmware version; Thing-IF's 404 when it has none.
    func information(caller: Caller, reference: ThingReference, field: ThingInformationUpdate.Field) async throws
        -> String
    {
        let thing = try await read(caller: caller, reference: reference)
        guard let value = thing.fields.values[field.thingField]?.stringValue else {
            throw KiiError(
                field == .thingType ? .thingWithoutThingType : .thingWithoutFirmwareVersion,
                "Thing \(thing.id.rawValue) has no \(field == .thingType ? "thing type" : "firmware version").",
                context: ["thingID": .string(thing.id.rawValue)])
        }
        return value
    }

    /// Stores the thing's new password (and vendor thing ID), then revokes what the old
    /// credentials gave: its other tokens and installations.
    private func replaceCredentials(caller: Caller, _ thing: Thing) async throws {
        try await store.updateThingCredentials(
            appID: thing.appID, id: thing.id, vendorThingID: thing.vendorThingID, passwordHash: thing.passwordHash,
            at: accounts.time.now())
        try await accounts.revokeOldCredentials(of: .thing(thing.id), caller: caller) {
            .allInstalledWithout($0, keeping: $1)
        }
    }

    /// `POST …/ownership` with the thing password: the calling user makes itself, or a group it
    /// belongs to, an owner.
    func claimOwnership(caller: Caller, reference: ThingReference, request: OwnershipClaimRequest) async throws -> Owner
    {
        let thing = try await find(caller: caller, reference: reference)
        let owner = request.owner
        try await requireActingAs(caller, owner)
        try await requireExists(caller, owner)
        try await checkPassword(request.thingPassword, of: thing, caller: caller)
        guard try await store.addOwner(appID: caller.appID, thing: thing.id, owner: owner) else {
            throw Self.ownershipExists(owner)
        }
        return owner
    }

    /// `PUT …/ownership/{owner}`: the thing itself, an owner or the admin adds an owner.
    func addOwner(caller: Caller, reference: ThingReference, owner: Owner) async throws {
        let thing = try await find(caller: caller, reference: reference)
        try await requireController(caller, thing, to: "add owners to this thing")
        try await requireExists(caller, owner)
        guard try await store.addOwner(appID: caller.appID, thing: thing.id, owner: owner) else {
            throw Self.ownershipExists(owner)
        }
    }

    /// True when `owner` owns the thing. Asked by one who may manage the thing, or by the owner
    /// in question (a user about itself, a member about its group).
    func isOwner(caller: Caller, reference: ThingReference, owner: Owner) async throws -> Bool {
        let thing = try await find(caller: caller, reference: reference)
        let owners = try await owners(of: thing)
        let groups = try await memberGroups(caller)
        let asksAboutItself: Bool
        switch owner {
        case .user(let id): asksAboutItself = caller.principal == .user(id)
        case .group(let id): asksAboutItself = groups.contains(id)
        }
        guard
            asksAboutItself
                || caller.relay == nil
                    && ThingAccess.mayManage(caller.principal, thing: thing.id, owners: owners, memberGroups: groups)
        else { throw caller.denied("read this thing's owners") }
        return owners.contains(owner)
    }

    func removeOwner(caller: Caller, reference: ThingReference, owner: Owner) async throws {
        let thing = try await find(caller: caller, reference: reference)
        try await requireController(caller, thing, to: "remove owners of this thing")
        guard try await store.removeOwner(appID: caller.appID, thing: thing.id, owner: owner) else {
            throw KiiError(
                .thingOwnershipNotFound, "\(owner) does not own this thing.", context: ["owner": .string("\(owner)")])
        }
    }

    func owners(caller: Caller, reference: ThingReference) async throws -> Set<Owner> {
        let thing = try await find(caller: caller, reference: reference)
        try await requireController(caller, thing, to: "read this thing's owners")
        return try await owners(of: thing)
    }

    /// Checks a thing password presented by `caller` (onboarding, an ownership claim) through
    /// the thing's lockout: `WRONG_PASSWORD` when it is wrong, 429 once the thing is locked.
    func checkPassword(_ password: String, of thing: Thing, caller: Caller) async throws {
        try await accounts.passwords.require(
            password, of: .thing(thing.id), hash: thing.passwordHash, caller: caller, "The thing password is wrong.")
    }

    func find(caller: Caller, reference: ThingReference) async throws -> Thing {
        guard let thing = try await facts.thing(appID: caller.appID, reference: reference) else {
            throw reference.notFound(appID: caller.appID)
        }
        return thing
    }

    func owners(of thing: Thing) async throws -> Set<Owner> {
        try await facts.owners(appID: thing.appID, thing: thing.id)
    }

    /// The thing as an end node, whose gateway receives its commands; nil when it is none.
    func endNode(of thing: Thing) async throws -> EndNode? {
        try await facts.endNode(appID: thing.appID, thing: thing.id)
    }

    func memberGroups(_ caller: Caller) async throws -> Set<GroupID> {
        guard let user = caller.principal.userID else { return [] }
        return try await facts.groups(appID: caller.appID, user: user)
    }

    func requireManager(_ caller: Caller, _ thing: Thing, to what: String) async throws {
        let owners = try await owners(of: thing)
        let groups = try await memberGroups(caller)
        guard ThingAccess.mayManage(caller.principal, thing: thing.id, owners: owners, memberGroups: groups) else {
            throw caller.denied(what)
        }
    }

    /// Who owns or controls the thing (its owners, password, vendor thing ID, deletion): a manager
    /// (`requireManager`), but never through a token a gateway minted for its end node, which acts
    /// for the end node's Thing-IF traffic only.
    func requireController(_ caller: Caller, _ thing: Thing, to what: String) async throws {
        if caller.relay != nil {
            throw caller.denied("\(what) with a token its gateway minted: that acts for its Thing-IF traffic only")
        }
        try await requireManager(caller, thing, to: what)
    }

    /// The caller is the user `owner` names, a member of the group it names, or the admin.
    func requireActingAs(_ caller: Caller, _ owner: Owner) async throws {
        if caller.principal == .admin { return }
        switch owner {
        case .user(let id):
            guard caller.principal == .user(id) else { throw caller.denied("make another user an owner") }
        case .group(let id):
            guard try await memberGroups(caller).contains(id) else {
                throw caller.denied("make a group it does not belong to an owner")
            }
        }
    }

    func requireExists(_ caller: Caller, _ owner: Owner) async throws {
        switch owner {
        case .user(let id):
            guard try await store.user(appID: caller.appID, id: id) != nil else {
                throw KiiError.userNotFound(appID: caller.appID, field: "userID", value: id.rawValue)
            }
        case .group(let id):
            guard try await store.group(appID: caller.appID, id: id) != nil else {
                throw GroupService.notFound(appID: caller.appID, id: id)
            }
        }
    }

    static func ownershipExists(_ owner: Owner) -> KiiError {
        KiiError(
            .thingOwnershipAlreadyExists, "\(owner) owns this thing already.", context: ["owner": .string("\(owner)")])
    }
}
