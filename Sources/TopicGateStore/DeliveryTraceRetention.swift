/// How long the per-device records of a traced push are kept.
public enum DeliveryTraceRetention {
    public static let span: Duration = .seconds(24 * 60 * 60)
}
