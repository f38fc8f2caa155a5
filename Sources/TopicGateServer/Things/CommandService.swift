import Logging
import TopicGateCore
import TopicGateStore

/// Thing-IF commands: an owner issues one, it goes to the thing's installations (an end node's
/// to its gateway's) through the push pipeline, the thing reports results, and the `commandID`
/// goes to the issuer's installations only (`CommandRouting`).
struct CommandService: Sendable {
    let store: any CommandStore & EndNodeStore & GroupStore
    let time: TimeSource
    let things: ThingService
    /// An end node's commands go to its gateway.
    let gateways: GatewayService
    /// The way to devices (with push off, commands are stored and stay `SENDING`).
    let dispatcher: any PushDispatcher
    /// What the broker takes (nil without push).
    let sizeLimit: PushSizeLimit?
    let logger: Logger
    /// The thing and issuer of the commands created here lately, for their results.
    var recent = RecentCommands()

    static let pageLimit = 200

    /// Stores the command (`SENDING`), queues it for the thing, returns it. Its push's ID is the
    /// command's; `traced` (the admin's): each device's outcome is recorded, read back from
    /// `/push/messages/{commandID}/deliveries`.
    func create(caller: Caller, thing reference: ThingReference, request: CommandRequest, traced: Bool = false)
        async throws -> Command
    {
        if traced && caller.principal != .admin { throw caller.denied("trace a command's push; only the admin may") }
        let thing = try await things.find(caller: caller, reference: reference)
        let owners = try await things.owners(of: thing)
        let groups = try await things.memberGroups(caller)
        guard CommandRouting.mayIssue(caller.principal, as: request.issuer, owners: owners, memberGroups: groups) else {
            logger.info(
                "Command refused",
                metadata: ["caller": "\(caller.principal)", "issuer": "\(request.issuer)", "thing": "\(thing.id)"])
            throw caller.denied(
                "send commands to this thing as \(request.issuer): the issuer must be an owner it acts for")
        }
        let now = time.now()
        // Only a trigger's command carries the trigger's ID.
        var request = request
        request.extras["firedByTriggerID"] = nil
        let command = Command(
            id: Self.newID(), appID: caller.appID, thing: thing.id, issuer: request.issuer, request: request,
            createdAt: now, modifiedAt: now)
        let store = self.store
        try await send(command, to: thing, traced: traced) { push in
            try await store.insertCommand(command, queueing: push)
        }
        return command
    }

    static func newID() -> CommandID { CommandID(Secrets.randomAlphanumeric(25)) }

    /// Sends `command` to `thing`'s installations (an end node's to its gateway's, which relays
    /// it) through the push pipeline, written by `storing` with its push (a trigger's command is
    /// written with the trigger's move, `TriggerService.fire`).
    func send(
        _ command: Command, to thing: Thing, traced: Bool = false,
        storing: @escaping (QueuedPush?) async throws -> Void
    ) async throws {
        let endNode = try await things.endNode(of: thing)
        let payload = JSONWriter.bytes(
            endNode.map { command.gatewayPayload(endNodeVendorThingID: $0.vendorThingID) } ?? command.thingPayload)
        try sizeLimit?.check(payload, field: "actions")
        let message = OutboxMessage(
            id: PushMessageID(command.id.rawValue), appID: command.appID, payload: payload,
            recipients: [.thing(endNode?.gateway ?? thing.id)],
            acceptedAt: command.createdAt, commandID: command.id, traced: traced)
        try await dispatcher.dispatch(message, storing: storing)
        recent.created(command)
    }

    /// A command, for the thing's owners (and the admin).
    func read(caller: Caller, thing reference: ThingReference, id: CommandID) async throws -> Command {
        let thing = try await readableThing(caller: caller, reference)
        return try await find(caller: caller, thing: thing, id: id)
    }

    /// The thing's commands, newest first.
    func list(caller: Caller, thing reference: ThingReference, limit: Int?, after key: String?) async throws
        -> (commands: [Command], next: String?)
    {
        let thing = try await readableThing(caller: caller, reference)
        let limit = min(max(limit ?? Self.pageLimit, 1), Self.pageLimit)
        return try await store.commands(appID: caller.appID, thing: thing.id, limit: limit, after: key)
    }

    /// Records the thing's results and pushes the `commandID` to the issuer's installations.
    func recordResults(caller: Caller, thing reference: ThingReference, id: CommandID, results: ActionResults)
        async throws
    {
        let thing = try await things.find(caller: caller, reference: reference)
        guard try await gateways.speaksFor(caller, thing: thing.id) else {
            throw caller.denied("report results for another thing's command")
        }
        var known = recent.issuer(appID: caller.appID, id: id)
        if known == nil { known = try await store.commandIssuer(appID: caller.appID, id: id) }
        guard let (commandThing, issuer) = known, commandThing == thing.id
        else { throw Self.notFound(id, of: thing) }
        // Flat results of a trait command (the older C thing SDK's) are stored grouped by alias.
        var results = results
        if results.isFlat, let command = try await store.command(appID: caller.appID, id: id),
            command.request.isTraitForm
        {
            results = try results.grouped(by: command.request.aliasOfAction)
        }
        let now = time.now()
        var members: [UserID] = []
        var owners: Set<Owner> = []
        if case .group(let group) = issuer {
            async let groupMembers = store.members(appID: caller.appID, group: group)
            owners = try await things.owners(of: thing)
            members = try await groupMembers
        }
        let recipients = CommandRouting.resultRecipients(issuer: issuer, groupMembers: members, owners: owners)
        let store = self.store
        func record(_ push: QueuedPush?) async throws {
            try await store.recordResults(
                appID: caller.appID, id: id, results: .array(results.results), state: results.state, at: now,
                queueing: push)
        }
        let pushMessageID = PushMessageID(Secrets.randomHex(bytes: 12))
        let message = OutboxMessage(
            id: pushMessageID, appID: caller.appID,
            payload: JSONWriter.bytes(Command.resultPayload(id, pushMessageID: pushMessageID, at: now)),
            recipients: recipients, acceptedAt: now)
        try await dispatcher.dispatch(message, storing: record)
    }

    /// Commands are read by the thing's owners and the admin, not by the thing itself.
    private func readableThing(caller: Caller, _ reference: ThingReference) async throws -> Thing {
        let thing = try await things.find(caller: caller, reference: reference)
        guard caller.principal != .thing(thing.id) else {
            throw caller.denied("read its commands: only its owners may")
        }
        try await things.requireManager(caller, thing, to: "read this thing's commands: only its owners may")
        return thing
    }

    private func find(caller: Caller, thing: Thing, id: CommandID) async throws -> Command {
        guard let command = try await store.command(appID: caller.appID, id: id), command.thing == thing.id else {
            throw Self.notFound(id, of: thing)
        }
        return command
    }

    static func notFound(_ id: CommandID, of thing: Thing) -> KiiError {
        KiiError(
            .commandNotFound, "Command \(id) of thing \(thing.id.rawValue) does not exist.",
            context: ["commandID": .string(id.rawValue), "thingID": .string(thing.id.rawValue)])
    }
}
