import TopicGateCore
import TopicGateStore

/// What a command's push tells the command: once a broker took it for one of its thing's
/// devices, when (`publishedAt`; the command stays `SENDING` until results); when it can never
/// arrive (no device, or given up on), `SEND_FAILED`.
struct CommandDelivery: PushCompletion {
    let store: any CommandStore

    func published(_ commands: [AppID: [CommandID]], at now: UnixMillis) async throws {
        for (appID, ids) in commands { try await store.recordPublished(appID: appID, ids: ids, at: now) }
    }

    func failed(_ commands: [AppID: [CommandID]], at now: UnixMillis) async throws {
        for (appID, ids) in commands { try await store.markSendFailed(appID: appID, ids: ids, at: now) }
    }
}
