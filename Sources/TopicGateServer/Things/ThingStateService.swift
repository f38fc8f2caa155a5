import Logging
import TopicGateCore
import TopicGateStore

/// Thing states: reported by the thing over HTTP or by publishing to `<mqttTopic>/state`;
/// read by its owners (latest, and a history within the retention period).
struct ThingStateService: Sendable {
    let store: any Store
    let time: TimeSource
    let things: ThingService
    /// An end node's gateway reports its states too.
    let gateways: GatewayService
    /// How long states are kept (ms); the latest is always kept.
    let retention: Int64
    /// The size cap, the per-thing rate and row cap (`AbuseControls`).
    let abuse: AbuseGuard
    let logger: Logger

    static let historyLimit = 1000
    /// The most stored JSON one history page carries (at least one state).
    static let historyPageBytes = 1 << 20

    /// A report over HTTP: by the thing itself, an end node's gateway, or one who manages the
    /// thing (its owners, the admin: a gateway agent may report with its owner's token).
    func report(caller: Caller, thing reference: ThingReference, request: StateReportRequest) async throws {
        let thing = try await things.find(caller: caller, reference: reference)
        if try await !gateways.speaksFor(caller, thing: thing.id) {
            try await things.requireManager(caller, thing, to: "report another thing's state")
        }
        try await record(appID: caller.appID, thing: thing.id, state: request.state)
    }

    /// A state published on MQTT to `<mqttTopic>/state` (the broker lets only that device
    /// publish there). Anything that is not a thing's live installation or not a JSON object is
    /// dropped with a log line. `receivedAt` (when the gateway got it from the broker) is the
    /// state's time: gateways sharing the state subscription record one thing's states in the
    /// order they arrived, whichever handled them first.
    func ingest(topic: String, payload: [UInt8], receivedAt: Int64? = nil) async {
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
            try await record(appID: installation.appID, thing: thing, state: report.state, at: receivedAt)
        } catch {
            logger.info("State published over MQTT dropped", metadata: ["topic": "\(topic)", "error": "\(error)"])
        }
    }

    func latest(caller: Caller, thing reference: ThingReference) async throws -> ThingStateRecord {
        let thing = try await readableThing(caller: caller, reference)
        guard let state = try await store.latestState(appID: caller.appID, thing: thing.id) else {
            throw KiiError(
                .stateNotFound, "Thing \(thing.id.rawValue) has reported no state yet.",
                context: ["thingID": .string(thing.id.rawValue)])
        }
        return state
    }

    /// A page of the history; `complete` is false when the count or the page's byte budget
    /// cut it (ask again from the last `recordedAt`).
    func history(caller: Caller, thing reference: ThingReference, from: Int64?, to: Int64?, limit: Int?) async throws
        -> (states: [ThingStateRecord], complete: Bool)
    {
        let thing = try await readableThing(caller: caller, reference)
        let limit = min(max(limit ?? 100, 1), Self.historyLimit)
        return try await store.stateHistory(
            appID: caller.appID, thing: thing.id, from: from ?? 0, to: to ?? Int64.max, limit: limit,
            maximumBytes: Self.historyPageBytes)
    }

    /// Stores a state within the caps: its size (400 naming the limit), the thing's rate (429)
    /// and its row cap (the oldest rows go).
    private func record(appID: AppID, thing: ThingID, state: [String: JSONValue], at time: Int64? = nil) async throws {
        let size = JSONWriter.bytes(.object(state)).count
        guard size <= abuse.controls.maximumStateBytes else {
            var error = KiiError.invalidInput(
                "The state is \(size) bytes; a state may be at most \(abuse.controls.maximumStateBytes) bytes.",
                field: "state")
            error.context["maximumBytes"] = .int(Int64(abuse.controls.maximumStateBytes))
            throw error
        }
        try await abuse.admitState(appID: appID, thing: thing)
        let now = time ?? self.time.now()
        try await store.recordState(
            appID: appID, thing: thing, ThingStateRecord(state: state, recordedAt: now), keepSince: now - retention,
            keepAtMost: abuse.controls.maximumStatesPerThing)
    }

    /// The thing itself, its owners and the admin read its state.
    private func readableThing(caller: Caller, _ reference: ThingReference) async throws -> Thing {
        let thing = try await things.find(caller: caller, reference: reference)
        try await things.requireManager(caller, thing, to: "read this thing's state")
        return thing
    }
}
