import TopicGateCore
import TopicGateStore

/// A command's state as its push settles: `DELIVERED` once the broker acknowledged it for one
/// of its thing's installations (a thing with none keeps it `SENDING`), `SEND_FAILED` when the
/// push was given up on.
struct CommandDelivery: PushCompletion {
    let store: any CommandStore

    func delivered(_ commands: [AppID: [CommandID]], at now: UnixMillis) async throws {
        for (appID, ids) in commands { try await store.markDelivered(appID: appID, ids: ids, at: now) }
    }

    func failed(_ commands: [AppID: [CommandID]], at now: UnixMillis) async throws {
        for (appID, ids) in commands { try await store.markSendFailed(appID: appID, ids: ids, at: now) }
    }
}
