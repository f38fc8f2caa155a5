/// How long the per-device records of a traced push are kept.
public enum DeliveryTraceRetention {
    public static let milliseconds: Int64 = 24 * 60 * 60 * 1000
}
