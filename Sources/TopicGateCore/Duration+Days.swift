extension Duration {
    /// `count` days of 24 hours: retention periods and idle ages, which operators give in days.
    public static func days(_ count: Int) -> Duration { .seconds(Int64(count) * 86_400) }
}
