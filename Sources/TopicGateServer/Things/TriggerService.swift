import Logging
import TopicGateCore
import TopicGateStore

/// Thing-IF triggers: a thing's owners (or the thing, or the admin) create, read, change, enable,
/// disable and delete the thing's triggers; a STATES trigger is evaluated on every state the thing
/// records, whichever way it arrives (`evaluate`, called where a state is recorded), and a timed
/// one when it falls due (`TriggerScheduler`). What fires is an ordinary command, sent as the
/// trigger's issuer through `CommandService`, carrying `firedByTriggerID`. The issuer's right to
/// command the target is checked when the trigger is made and again each time it fires: a trigger
/// whose issuer lost it is disabled, with the reason in `disabledReason`.
struct TriggerService: Sendable {
    let store: any TriggerStore & ThingStateStore & UserStore & GroupStore
    let things: ThingService
    let commands: CommandService
    let time: TimeSource
    /// Triggers one thing may have (nil: no cap).
    let limit: Int?
    let logger: Logger
    /// Each thing's enabled STATES triggers, as defined (never their last evaluation, which a
    /// firing reads and moves in the database), while no trigger of any thing changed.
    let definitions: AccessFactCache<String, [Trigger]>
    /// Whether each issuing user is enabled (`app/user`), while no user changed.
    let issuers: AccessFactCache<String, Bool>

    init(
        store: any TriggerStore & ThingStateStore & UserStore & GroupStore & StatesCaching, things: ThingService,
        commands: CommandService, time: TimeSource, limit: Int?, logger: Logger
    ) {
        self.store = store
        self.things = things
        self.commands = commands
        self.time = time
        self.limit = limit
        self.logger = logger
        definitions = AccessFactCache(generation: store.relationsGeneration, capacity: 20_000)
        issuers = AccessFactCache(generation: store.identityGeneration, capacity: 20_000)
    }

    static let pageLimit = 100
    /// The app configuration parameter that lets principals (not only the admin) create timed
    /// triggers, as Kii's `allowCreateTaskByPrincipal`.
    static let allowTimedByPrincipal = "allowCreateTaskByPrincipal"
    /// Why a trigger was disabled when its issuer could no longer command its target.
    static let rejected = "COMMAND_EXECUTION_REJECTED"

    func create(caller: Caller, thing reference: ThingReference, body: [String: JSONValue]) async throws -> Trigger {
        let thing = try await things.find(caller: caller, reference: reference)
        try await things.requireManager(caller, thing, to: "create triggers for this thing")
        let request = try TriggerRequest(body: body, creating: true)
        guard let predicate = request.predicate, let commandJSON = request.command else {
            throw KiiError(.wrongTrigger, "A trigger has a 'predicate' and a 'command'.")
        }
        try await requireMayTime(caller, predicate)
        let command = try TriggerCommand(json: commandJSON, watched: thing.id)
        try await requireMayCommand(caller, watched: thing, command)
        if let limit, try await store.triggerCount(appID: caller.appID, thing: thing.id) >= limit {
            throw KiiError(
                .quotaExceeded, "Thing \(thing.id.rawValue) has \(limit) triggers already, the most it may have.",
                context: ["limit": .int(Int64(limit))])
        }
        let now = time.now()
        var trigger = Trigger(
            id: TriggerID(Secrets.randomAlphanumeric(25)), appID: caller.appID, thing: thing.id, predicate: predicate,
            command: command, title: request.title ?? nil, description: request.description ?? nil,
            metadata: request.metadata ?? nil, createdAt: now, modifiedAt: now)
        try await start(&trigger, at: now)
        try await store.insertTrigger(trigger)
        return trigger
    }

    func read(caller: Caller, thing reference: ThingReference, id: TriggerID) async throws -> Trigger {
        let thing = try await things.find(caller: caller, reference: reference)
        try await things.requireManager(caller, thing, to: "read this thing's triggers")
        return try await find(caller: caller, thing: thing, id: id)
    }

    func list(caller: Caller, thing reference: ThingReference, limit: Int?, after key: String?) async throws
        -> (triggers: [Trigger], next: String?)
    {
        let thing = try await things.find(caller: caller, reference: reference)
        try await things.requireManager(caller, thing, to: "list this thing's triggers")
        let limit = min(max(limit ?? Self.pageLimit, 1), Self.pageLimit)
        return try await store.triggers(appID: caller.appID, thing: thing.id, limit: limit, after: key)
    }

    /// `PATCH`: the members sent replace theirs; a changed predicate starts afresh (its last
    /// evaluation, its next due time). A disabled trigger stays disabled.
    func change(caller: Caller, thing reference: ThingReference, id: TriggerID, body: [String: JSONValue])
        async throws
    {
        let thing = try await things.find(caller: caller, reference: reference)
        try await things.requireManager(caller, thing, to: "change this thing's triggers")
        var trigger = try await find(caller: caller, thing: thing, id: id)
        let request = try TriggerRequest(body: body, creating: false)
        if let predicate = request.predicate {
            try await requireMayTime(caller, predicate)
            trigger.predicate = predicate
        }
        if let command = request.command {
            trigger.command = try TriggerCommand(json: command, watched: thing.id)
        }
        if request.command != nil || request.predicate != nil {
            try await requireMayCommand(caller, watched: thing, trigger.command)
        }
        if let title = request.title { trigger.title = title }
        if let description = request.description { trigger.description = description }
        if let metadata = request.metadata { trigger.metadata = metadata }
        let now = time.now()
        trigger.modifiedAt = now
        if request.predicate != nil { try await start(&trigger, at: now) }
        // Its status, and its schedule unless the predicate changed, as they are now: a firing or a
        // disable made while this request ran stands.
        let parts: TriggerParts = request.predicate != nil ? [.definition, .schedule] : .definition
        guard try await store.updateTrigger(trigger, parts: parts) else { throw Self.notFound(id, of: thing.id) }
    }

    /// Enables or disables; enabling an enabled trigger (or disabling a disabled one) succeeds.
    /// Enabled again, a timed trigger is next due after now (what fell due meanwhile is not sent).
    func setEnabled(caller: Caller, thing reference: ThingReference, id: TriggerID, enabled: Bool) async throws {
        let thing = try await things.find(caller: caller, reference: reference)
        try await things.requireManager(caller, thing, to: "enable or disable this thing's triggers")
        var trigger = try await find(caller: caller, thing: thing, id: id)
        guard trigger.disabled == enabled else { return }
        let now = time.now()
        trigger.disabled = !enabled
        trigger.disabledReason = nil
        trigger.modifiedAt = now
        if enabled { try await start(&trigger, at: now) }
        // Its definition as it is now (an owner's change made meanwhile stands).
        let parts: TriggerParts = enabled ? [.status, .schedule] : .status
        guard try await store.updateTrigger(trigger, parts: parts) else { throw Self.notFound(id, of: thing.id) }
    }

    func delete(caller: Caller, thing reference: ThingReference, id: TriggerID) async throws {
        let thing = try await things.find(caller: caller, reference: reference)
        try await things.requireManager(caller, thing, to: "delete this thing's triggers")
        _ = try await find(caller: caller, thing: thing, id: id)
        guard try await store.deleteTrigger(appID: caller.appID, id: id) else { throw Self.notFound(id, of: thing.id) }
    }

    /// `PUT /api/apps/{app}/configuration/parameters/{name}` (the admin): a bare value.
    func setParameter(caller: Caller, name: String, value: String) async throws {
        try caller.requireAdmin(to: "change the app's configuration")
        guard IDSyntax.isWellFormed(name), value.utf8.count <= 1000 else {
            throw KiiError.invalidInput("A parameter has a name of 1 to 128 letters and a value of at most 1000 bytes.")
        }
        try await store.setAppParameter(appID: caller.appID, name: name, value: value)
    }

    func parameter(caller: Caller, name: String) async throws -> String {
        try caller.requireAdmin(to: "read the app's configuration")
        guard let value = try await store.appParameter(appID: caller.appID, name: name) else {
            throw KiiError(.notFound, "The app has no parameter \(name).", context: ["name": .string(name)])
        }
        return value
    }

    // MARK: Firing

    /// Evaluates the thing's STATES triggers on `records`, just stored: those whose condition
    /// reads an alias (or the plain state) that `records` hold. What fires is sent; a trigger that
    /// cannot fire is logged, never failing the state's report. The previous evaluation is the
    /// database's, compared and moved as the trigger fires (`TriggerFiring.Condition.moved`).
    func evaluate(appID: AppID, thing: ThingID, _ records: [ThingStateRecord], at now: UnixMillis) async {
        do {
            let reported = Set(records.map(\.alias))
            let all =
                try await definitions.value("\(appID.rawValue)/\(thing.rawValue)") {
                    try await store.stateTriggers(appID: appID, thing: thing)
                } ?? []
            let watching = all.filter { trigger in
                guard case .states(let clause, _) = trigger.predicate.rule else { return false }
                return !clause.aliases.isDisjoint(with: reported)
            }
            guard !watching.isEmpty else { return }
            let needed = watching.reduce(into: Set<String?>()) { needed, trigger in
                if case .states(let clause, _) = trigger.predicate.rule { needed.formUnion(clause.aliases) }
            }
            let snapshot =
                needed.isSubset(of: reported)
                ? ThingStateSnapshot(records)
                : ThingStateSnapshot(try await store.latestStates(appID: appID, thing: thing))
            var unmatched: [TriggerID] = []
            for trigger in watching {
                guard case .states(let clause, let when) = trigger.predicate.rule else { continue }
                let matched = clause.matches(snapshot)
                switch when.requirement(now: matched) {
                case .none?: try await fire(trigger, .satisfied, at: now)
                case .previous(let previous)?: try await fire(trigger, .moved(from: previous, to: matched), at: now)
                // Its last evaluation must read false for the next true state to fire it.
                case nil: if when == .conditionFalseToTrue { unmatched.append(trigger.id) }
                }
            }
            try await store.clearMatches(appID: appID, ids: unmatched)
        } catch {
            logger.error(
                "Triggers not evaluated on a state",
                metadata: ["appID": "\(appID)", "thingID": "\(thing)", "error": "\(error)"])
        }
    }

    /// Sends `trigger`'s command if its issuer may still command its target and the trigger is
    /// still as `condition` says (else another gateway fired it); disables it when the issuer
    /// may not. True when it fired.
    @discardableResult
    func fire(_ trigger: Trigger, _ condition: TriggerFiring.Condition, at now: UnixMillis) async throws -> Bool {
        let firing = TriggerFiring(appID: trigger.appID, id: trigger.id, condition: condition)
        guard let target = try await mayStillCommand(trigger) else { return false }
        let command = trigger.firedCommand(id: CommandService.newID(), at: now)
        let fired: Bool
        do {
            // Written with the trigger's move only if it is still as read; undone otherwise.
            let store = self.store
            try await commands.send(command, to: target) { push in
                guard try await store.fireTrigger(firing, command: command, queueing: push) else {
                    throw TriggerTaken()
                }
            }
            fired = true
        } catch is TriggerTaken {
            fired = false
        } catch let error as KiiError {
            // The command itself cannot be sent (too large for the broker): it never will be.
            try await store.disableTrigger(
                appID: trigger.appID, id: trigger.id, reason: "\(Self.rejected): \(error.message)", at: time.now())
            logger.warning(
                "Trigger disabled: its command cannot be sent",
                metadata: ["triggerID": "\(trigger.id)", "error": "\(error)"])
            return false
        }
        if fired {
            logger.info(
                "Trigger fired",
                metadata: ["triggerID": "\(trigger.id)", "commandID": "\(command.id)", "thingID": "\(target.id)"])
        }
        return fired
    }

    /// The target, when the trigger's issuer still owns it and still exists (a user not
    /// disabled); otherwise the trigger is disabled with the reason, and nil.
    private func mayStillCommand(_ trigger: Trigger) async throws -> Thing? {
        let appID = trigger.appID
        let issuer = trigger.command.request.issuer
        var reason: String?
        let target = try await things.facts.thing(appID: appID, reference: .id(trigger.command.target))
        if let target {
            if try await !things.owners(of: target).contains(issuer) {
                reason = "\(issuer) no longer owns thing \(target.id.rawValue)"
            } else if target.id != trigger.thing, try await !ownsWatched(trigger, issuer) {
                reason = "\(issuer) no longer owns thing \(trigger.thing.rawValue), whose trigger this is"
            }
        } else {
            reason = "thing \(trigger.command.target.rawValue) no longer exists"
        }
        if reason == nil {
            switch issuer {
            case .user(let id):
                let enabled = try await issuers.value("\(appID.rawValue)/\(id.rawValue)") {
                    try await store.user(appID: appID, id: id).map { !$0.disabled }
                }
                if enabled == nil {
                    reason = "\(issuer) no longer exists"
                } else if enabled == false {
                    reason = "\(issuer) is disabled"
                }
            case .group(let id):
                if try await store.group(appID: appID, id: id) == nil { reason = "\(issuer) no longer exists" }
            }
        }
        guard let reason else { return target }
        try await store.disableTrigger(
            appID: appID, id: trigger.id, reason: "\(Self.rejected): \(reason)", at: time.now())
        logger.warning(
            "Trigger disabled: its issuer may no longer command its target",
            metadata: ["triggerID": "\(trigger.id)", "reason": "\(reason)"])
        return nil
    }

    /// Whether `issuer` owns the thing the trigger belongs to.
    private func ownsWatched(_ trigger: Trigger, _ issuer: Owner) async throws -> Bool {
        guard let watched = try await things.facts.thing(appID: trigger.appID, reference: .id(trigger.thing)) else {
            return false
        }
        return try await things.owners(of: watched).contains(issuer)
    }

    /// Thrown out of a fired command's write to undo it: the trigger had moved on.
    private struct TriggerTaken: Error {}

    // MARK: Rules

    /// A trigger that starts (created, its predicate changed, enabled again): a STATES trigger's
    /// evaluation of the thing's state now (so that CONDITION_FALSE_TO_TRUE waits for a change),
    /// a timed trigger's next due time.
    private func start(_ trigger: inout Trigger, at now: UnixMillis) async throws {
        trigger.nextDueAt = trigger.predicate.nextDue(after: now)
        if case .states(let clause, _) = trigger.predicate.rule {
            let latest = try await store.latestStates(appID: trigger.appID, thing: trigger.thing)
            trigger.lastMatched = latest.isEmpty ? nil : clause.matches(ThingStateSnapshot(latest))
        } else {
            trigger.lastMatched = nil
        }
    }

    /// Timed triggers are the admin's unless the app lets principals make them.
    private func requireMayTime(_ caller: Caller, _ predicate: TriggerPredicate) async throws {
        guard predicate.isTimed, caller.principal != .admin else { return }
        guard try await store.appParameter(appID: caller.appID, name: Self.allowTimedByPrincipal) == "true" else {
            throw caller.denied(
                "create a SCHEDULE or SCHEDULE_ONCE trigger: the app's admin may, or anyone once the admin sets the "
                    + "app's \(Self.allowTimedByPrincipal) to true")
        }
    }

    /// The command's issuer must own its target, and the caller act as that issuer (a user as
    /// itself, a member as its group, the admin as anyone) or be the trigger's own thing. A
    /// command to another thing needs an issuer that owns both, as Kii asks: else a thing, which
    /// reports the states its triggers read, could command any thing in the app as its owner.
    /// A target that does not exist is refused as one the caller may not command, with the same
    /// answer, so that a trigger tells nobody which thing IDs exist; only the admin hears which.
    private func requireMayCommand(_ caller: Caller, watched: Thing, _ command: TriggerCommand) async throws {
        let issuer = command.request.issuer
        if command.target != watched.id, try await !things.owners(of: watched).contains(issuer) {
            throw caller.denied(
                "make a trigger of thing \(watched.id.rawValue) send commands to thing \(command.target.rawValue) as "
                    + "\(issuer): a trigger commands another thing only as an owner of both")
        }
        if let target = try await things.facts.thing(appID: caller.appID, reference: .id(command.target)) {
            let owners = try await things.owners(of: target)
            let groups = try await things.memberGroups(caller)
            if CommandRouting.mayIssue(caller.principal, as: issuer, owners: owners, memberGroups: groups) { return }
            if caller.principal == .thing(watched.id), owners.contains(issuer) { return }
        } else if caller.principal == .admin {
            throw KiiError(
                .wrongTrigger, "The trigger's command targets thing \(command.target.rawValue), which does not exist.",
                context: ["field": "target"])
        }
        throw caller.denied(
            "make a trigger send commands to thing \(command.target.rawValue) as \(issuer): the issuer must be an owner "
                + "of that thing, and the caller act as it")
    }

    private func find(caller: Caller, thing: Thing, id: TriggerID) async throws -> Trigger {
        guard let trigger = try await store.trigger(appID: caller.appID, id: id), trigger.thing == thing.id else {
            throw Self.notFound(id, of: thing.id)
        }
        return trigger
    }

    static func notFound(_ id: TriggerID, of thing: ThingID) -> KiiError {
        KiiError(
            .triggerNotFound, "The trigger is not found: \(id.rawValue) of thing \(thing.rawValue).",
            context: ["triggerID": .string(id.rawValue), "thingID": .string(thing.rawValue)])
    }
}
