/// MQTT quality of service.
public enum MQTTQoS: Int32, Sendable, Hashable {
    case atMostOnce = 0
    case atLeastOnce = 1
    case exactlyOnce = 2
}
