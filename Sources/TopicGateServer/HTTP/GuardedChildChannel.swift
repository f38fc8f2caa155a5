import HummingbirdCore
import Logging
import NIOCore

/// Another server channel (Hummingbird's WebSocket upgrade channel) with `ConnectionGuardHandler`
/// first in its pipeline: the same caps on open connections and the same deadlines as the API.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let limits: ConnectionLimits
    let readTimeout: TimeAmount?
    let firstByteTimeout: TimeAmount?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(
                ConnectionGuardHandler(
                    limits: limits, readTimeout: readTimeout, firstByteTimeout: firstByteTimeout, upgrades: true),
                position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
