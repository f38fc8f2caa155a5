import TopicGateCore
import TopicGateStore

/// What a command's push tells the command when it can never arrive (no device, or given up
/// on): `SEND_FAILED`. When a broker took it for one of its thing's devices (`publishedAt`; the
/// command stays `SENDING` until results) is written with the push's settlement.
struct CommandDelivery: PushCompletion {
    let store: any CommandStore

    func failed(_ commands: [AppID: [CommandID]], at now: UnixMillis) async throws {
        for (appID, ids) in commands { try await store.markSendFailed(appID: appID, ids: ids, at: now) }
    }
}
