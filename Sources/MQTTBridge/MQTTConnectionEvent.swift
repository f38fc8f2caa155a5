/// What happened to an `MQTTClient`'s connection, in order.
public enum MQTTConnectionEvent: Sendable, Hashable {
    /// The broker accepted a CONNECT (the first one, or one after a reconnect).
    case connected
    /// The broker refused a CONNECT; the client stops reconnecting.
    case refused(MQTTError)
    /// The connection ended; `expected` is true after `disconnect()` or `shutdown()`, false when
    /// it was lost (broker gone, kicked), after which libmosquitto reconnects on its own.
    case disconnected(expected: Bool)
}
