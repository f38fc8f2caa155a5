import Logging
import TopicGateCore
import TopicGateStore

/// Thing states: reported by the thing over HTTP or by publishing to `<mqttTopic>/state`;
/// read by its owners (latest, and a history within the retention period).
struct ThingStateService: Sendable {
    let store: any Store
    let time: TimeSource
    let things: ThingService
    /// How long states are kept (ms); the latest is always kept.
    let retention: Int64
    let logger: Logger

    static let historyLimit = 1000

    /// The thing's own report over HTTP.
    func report(caller: Caller, thing reference: ThingReference, body: JSONValue?) async throws {
        let thing = try await things.find(caller: caller, reference: reference)
        guard caller.principal == .thing(thing.id) else { throw caller.denied("report another thing's state") }
        try await record(appID: caller.appID, thing: thing.id, state: try ThingStateRecord.validate(body))
    }

    /// A state published on MQTT to `<mqttTopic>/state` (the broker lets only that device
    /// publish there). Anything that is not a thing's live installation or not a JSON object is
    /// dropped with a log line.
    func ingest(topic: String, payload: [UInt8]) async {
        guard topic.hasSuffix("/state") else { return }
        let mqttTopic = String(topic.dropLast("/state".count))
        do {
            guard let installation = try await store.liveInstallation(mqttTopic: mqttTopic),
                case .thing(let thing) = installation.principal
            else {
                logger.info("State from an MQTT topic that is no thing's live installation dropped", metadata: ["topic": "\(topic)"])
                return
            }
            let state = try ThingStateRecord.validate(try? JSONReader.value(payload))
            try await record(appID: installation.appID, thing: thing, state: state)
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

    func history(caller: Caller, thing reference: ThingReference, from: Int64?, to: Int64?, limit: Int?) async throws
        -> [ThingStateRecord]
    {
        let thing = try await readableThing(caller: caller, reference)
        let limit = min(max(limit ?? 100, 1), Self.historyLimit)
        return try await store.stateHistory(
            appID: caller.appID, thing: thing.id, from: from ?? 0, to: to ?? Int64.max, limit: limit)
    }

    private func record(appID: AppID, thing: ThingID, state: [String: JSONValue]) async throws {
        let now = time.now()
        try await store.recordState(
            appID: appID, thing: thing, ThingStateRecord(state: state, recordedAt: now), keepSince: now - retention)
    }

    /// The thing itself, its owners and the admin read its state.
    private func readableThing(caller: Caller, _ reference: ThingReference) async throws -> Thing {
        let thing = try await things.find(caller: caller, reference: reference)
        try await things.requireManager(caller, thing, to: "read this thing's state")
        return thing
    }
}
