internal import CMosquitto

/// An error of the MQTT client: a libmosquitto return code, a refused connection, a refused
/// subscription, a timeout or a closed client.
public struct MQTTError: Error, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }

        /// libmosquitto answered a call with an error (`detail` says which).
        public static let library = Code(name: "library")
        /// The broker refused the CONNECT (`detail` holds the CONNACK reason).
        public static let connectionRefused = Code(name: "connectionRefused")
        /// The broker refused a SUBSCRIBE (SUBACK 0x80).
        public static let subscriptionRefused = Code(name: "subscriptionRefused")
        /// No acknowledgement within the time allowed.
        public static let timeout = Code(name: "timeout")
        /// libmosquitto gave a call a message ID that an earlier call still holds (it wrapped
        /// around a message never acknowledged): the call's acknowledgement cannot be told
        /// apart, so it counts as unacknowledged.
        public static let ambiguousAcknowledgement = Code(name: "ambiguousAcknowledgement")
        /// The client was shut down.
        public static let closed = Code(name: "closed")
    }

    public let code: Code
    /// libmosquitto's return code or the CONNACK reason code, when there is one.
    public let returnCode: Int32?
    public let detail: String

    public init(code: Code, returnCode: Int32? = nil, detail: String) {
        self.code = code
        self.returnCode = returnCode
        self.detail = detail
    }

    public var description: String { "MQTT \(code): \(detail)" }

    /// The one choke point that turns a libmosquitto return code into a Swift error.
    static func check(_ rc: Int32, _ operation: String) throws(MQTTError) {
        guard rc != MOSQ_ERR_SUCCESS.rawValue else { return }
        throw MQTTError(
            code: .library, returnCode: rc, detail: "\(operation): \(String(cString: mosquitto_strerror(rc)))")
    }

    /// The error for a CONNACK that refused the connection.
    static func refused(_ reason: Int32) -> MQTTError {
        MQTTError(
            code: .connectionRefused, returnCode: reason,
            detail: String(cString: mosquitto_connack_string(reason)))
    }
}
