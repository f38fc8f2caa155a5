import Logging
import TopicGateCore
import TopicGateStore

/// Thing states: reported by the thing over HTTP or by publishing to `<mqttTopic>/state`;
/// read by its owners (latest, and a history within the retention period).
struct ThingStateService: Sendable {
    let store: any InstallationStore & ThingStateStore
    let time: TimeSource
    let things: ThingService
    /// An end node's gateway reports its states too.
    let gateways: GatewayService
    /// The thing's STATES triggers, evaluated on every state recorded here.
    let triggers: TriggerService
    /// How long states are kept (ms); the latest is always kept.
    let retention: Duration
    /// The size cap, the per-thing rate and row cap (`AbuseControls`).
    let abuse: AbuseGuard
    let logger: Logger

    static let historyLimit = 1000
    /// The most stored JSON one history page carries (at least one state).
    static let historyPageBytes = 1 << 20

    /// A plain report over HTTP: by the thing itself, an end node's gateway, or one who manages
    /// the thing (its owners, the admin: a gateway agent may report with its owner's token).
    func report(caller: Caller, thing reference: ThingReference, request: StateReportRequest) async throws {
        let thing = try await reporting(caller: caller, reference)
        try await record(appID: caller.appID, thing: thing.id, [ThingStateRecord(state: request.state, recordedAt: 0)])
    }

    /// A trait report over HTTP (every alias, or one), by the same callers.
    func report(caller: Caller, thing reference: ThingReference, traits: TraitStateReport) async throws {
        let thing = try await reporting(caller: caller, reference)
        try await record(
            appID: caller.appID, thing: thing.id,
            traits.states.map { ThingStateRecord(state: $0.state, recordedAt: 0, alias: $0.alias) })
    }

    private func reporting(caller: Caller, _ reference: ThingReference) async throws -> Thing {
        let thing = try await things.find(caller: caller, reference: reference)
        if try await !gateways.speaksFor(caller, thing: thing.id) {
            try await things.requireManager(caller, thing, to: "report another thing's state")
        }
        return thing
    }

    /// A state published on MQTT to `<mqttTopic>/state` (the broker lets only that device
    /// publish there). Anything that is not a thing's live installation or not a JSON object is
    /// dropped with a log line. `receivedAt` (when the gateway got it from the broker) is the
    /// state's time: gateways sharing the state subscription record one thing's states in the
    /// order they arrived, whichever handled them first.
    func ingest(topic: String, payload: [UInt8], receivedAt: UnixMillis? = nil) async {
        guard topic.hasSuffix("/state") else { return }
        let mqttTopic = String(topic.dropLast("/state".count))
        do {
            guard let installation = try await store.liveInstallation(mqttTopic: mqttTopic),
                case .thing(let thing) = installation.principal
            else {
                logger.info(
                    "State from an MQTT topic that is no thing's live installation dropped",
                    metadata: ["topic": "\(topic)"])
                return
            }
            let report = try StateReportRequest(payload: try? JSONReader.value(payload))
            // A trait thing publishes every alias at once.
            let records: [ThingStateRecord]
            if TraitStateReport.isAliasMap(report.state),
                try await store.latestState(appID: installation.appID, thing: thing)?.alias != nil
            {
                records = try TraitStateReport(aliases: report.state).states.map {
                    ThingStateRecord(state: $0.state, recordedAt: 0, alias: $0.alias)
                }
            } else {
                records = [ThingStateRecord(state: report.state, recordedAt: 0)]
            }
            try await record(appID: installation.appID, thing: thing, records, at: receivedAt)
        } catch {
            logger.info("State published over MQTT dropped", metadata: ["topic": "\(topic)", "error": "\(error)"])
        }
    }

    /// The latest state as `GET …/states` answers it: a plain thing's last state, or a trait
    /// thing's latest state of each alias under its alias.
    func latest(caller: Caller, thing reference: ThingReference) async throws -> [String: JSONValue] {
        let thing = try await readableThing(caller: caller, reference)
        let latest = try await store.latestStates(appID: caller.appID, thing: thing.id)
        guard let newest = latest.first else { throw Self.noState(thing.id) }
        guard newest.alias != nil else { return newest.state }
        var states: [String: JSONValue] = [:]
        for record in latest { if let alias = record.alias { states[alias] = .object(record.state) } }
        return states
    }

    /// One trait alias's latest state.
    func latest(caller: Caller, thing reference: ThingReference, alias: String) async throws -> [String: JSONValue] {
        let thing = try await readableThing(caller: caller, reference)
        guard
            let record = try await store.latestStates(appID: caller.appID, thing: thing.id).first(where: {
                $0.alias == alias
            })
        else { throw Self.noState(thing.id, alias: alias) }
        return record.state
    }

    static func noState(_ thing: ThingID, alias: String? = nil) -> KiiError {
        KiiError(
            .stateNotFound,
            "Thing \(thing.rawValue) has reported no state\(alias.map { " for alias \($0)" } ?? "") yet.",
            context: ["thingID": .string(thing.rawValue)])
    }

    /// A page of the history; `complete` is false when the count or the page's byte budget
    /// cut it (ask again from the last `recordedAt`).
    func history(
        caller: Caller, thing reference: ThingReference, alias: String? = nil, from: UnixMillis?, to: UnixMillis?,
        limit: Int?
    ) async throws -> (states: [ThingStateRecord], complete: Bool) {
        let thing = try await readableThing(caller: caller, reference)
        let limit = min(max(limit ?? 100, 1), Self.historyLimit)
        return try await store.stateHistory(
            appID: caller.appID, thing: thing.id, alias: alias, from: from ?? 0, to: to ?? .max, limit: limit,
            maximumBytes: Self.historyPageBytes)
    }

    /// How many states one query reads at most: a clause that matches few of them answers with
    /// fewer results than asked and a `nextPaginationKey` to read on (Kii's best effort).
    static let queryScanBudget = 20_000
    static let queryChunk = 1000

    /// A trait state history query (`StateHistoryQuery`) on `alias`, for the thing's owners and
    /// the admin: `409 STATE_HISTORY_NOT_AVAILABLE` when the thing never reported a state, `404
    /// TRAIT_ALIAS_NOT_FOUND` when it never reported that alias, 200 with an empty list when
    /// nothing matches.
    func query(caller: Caller, thing reference: ThingReference, alias: String, body: [String: JSONValue])
        async throws -> JSONValue
    {
        let thing = try await readableThing(caller: caller, reference)
        let query = try StateHistoryQuery(body: body)
        // Both read one entry of an index, however long the history.
        let reported = try await store.aliasStates(
            appID: caller.appID, thing: thing.id, alias: alias, from: UnixMillis(0), to: UnixMillis(.max), after: nil,
            limit: 1)
        guard !reported.isEmpty else {
            guard try await store.latestState(appID: caller.appID, thing: thing.id) != nil else {
                throw KiiError(
                    .stateHistoryNotAvailable, "Thing \(thing.id.rawValue) has no state history yet.",
                    context: ["thingID": .string(thing.id.rawValue)])
            }
            throw KiiError(
                .traitAliasNotFound, "Thing \(thing.id.rawValue) has reported no state for alias \(alias).",
                context: ["thingID": .string(thing.id.rawValue), "alias": .string(alias)])
        }
        if query.grouped {
            let interval = thing.fields.dataGroupingInterval ?? .standard
            let (from, to) = try query.groupedRange(interval)
            var matching: [ThingStateRecord] = []
            var after: StatePosition?
            var read = 0
            while read < Self.queryScanBudget * 5 {
                let chunk = try await store.aliasStates(
                    appID: caller.appID, thing: thing.id, alias: alias, from: from, to: to, after: after,
                    limit: Self.queryChunk)
                read += chunk.count
                matching += chunk.lazy.filter { query.clause.matches($0.record.state) }.map(\.record)
                guard chunk.count == Self.queryChunk, let last = chunk.last else {
                    return query.groupedAnswer(matching, interval: interval)
                }
                after = last.position
            }
            throw KiiError.invalidInput(
                "The range holds more than \(Self.queryScanBudget * 5) states; ask for a shorter one.",
                field: "clause")
        }
        var results: [JSONValue] = []
        var after = query.after
        var read = 0
        while read < Self.queryScanBudget {
            let asked = query.clause == .all ? query.limit - results.count : Self.queryChunk
            let chunk = try await store.aliasStates(
                appID: caller.appID, thing: thing.id, alias: alias, from: query.from, to: query.to, after: after,
                limit: asked)
            read += chunk.count
            for (position, record) in chunk where query.clause.matches(record.state) {
                results.append(.object(StateHistoryQuery.listed(record)))
                if results.count == query.limit {
                    // A key only when a state follows (it may not match: a best-effort page).
                    let more = try await store.aliasStates(
                        appID: caller.appID, thing: thing.id, alias: alias, from: query.from, to: query.to,
                        after: position, limit: 1)
                    return Self.page(results, next: more.isEmpty ? nil : position)
                }
            }
            guard chunk.count == asked, let last = chunk.last else { return Self.page(results, next: nil) }
            after = last.position
        }
        // Read as much as one query may: what matched so far, and where to go on.
        return Self.page(results, next: after)
    }

    static func page(_ results: [JSONValue], next: StatePosition?) -> JSONValue {
        var answer: [String: JSONValue] = ["results": .array(results)]
        if let next { answer["nextPaginationKey"] = .string(next.key) }
        return .object(answer)
    }

    /// Stores a report within the caps: its size (400 naming the limit), the thing's rate (429)
    /// and its row cap (the oldest rows go). A thing reports in one form: once it reported by
    /// trait alias, a plain state is refused (`INVALID_INPUT_DATA`); a plain thing may move to
    /// traits (new firmware).
    private func record(appID: AppID, thing: ThingID, _ records: [ThingStateRecord], at time: UnixMillis? = nil)
        async throws
    {
        let size = records.reduce(0) { $0 + JSONWriter.bytes(.object($1.state)).count }
        guard size <= abuse.controls.maximumStateBytes else {
            var error = KiiError.invalidInput(
                "The state is \(size) bytes; a state may be at most \(abuse.controls.maximumStateBytes) bytes.",
                field: "state")
            error.context["maximumBytes"] = .int(Int64(abuse.controls.maximumStateBytes))
            throw error
        }
        if records.contains(where: { $0.alias == nil }),
            try await store.latestState(appID: appID, thing: thing)?.alias != nil
        {
            throw KiiError.invalidInput(
                "This thing reports its state by trait alias: PUT …/states with "
                    + "application/vnd.kii.MultipleTraitState+json, or …/states/aliases/{alias} with "
                    + "application/vnd.kii.TraitState+json.", field: "state")
        }
        try await abuse.admitState(appID: appID, thing: thing)
        let now = time ?? self.time.now()
        let recorded = records.map { ThingStateRecord(state: $0.state, recordedAt: now, alias: $0.alias) }
        try await store.recordState(
            appID: appID, thing: thing, recorded, keepSince: now - retention,
            keepAtMost: abuse.controls.maximumStatesPerThing)
        await triggers.evaluate(appID: appID, thing: thing, recorded, at: now)
    }

    /// The thing itself, its owners and the admin read its state.
    private func readableThing(caller: Caller, _ reference: ThingReference) async throws -> Thing {
        let thing = try await things.find(caller: caller, reference: reference)
        try await things.requireManager(caller, thing, to: "read this thing's state")
        return thing
    }
}
