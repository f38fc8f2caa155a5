import Hummingbird

extension Request {
    /// `?limit=` of an operator's listing, kept within 1…1000; `fallback` when it is missing or
    /// not a number.
    func limit(default fallback: Int) -> Int {
        min(1000, max(1, uri.queryParameters.get("limit").flatMap { Int($0) } ?? fallback))
    }
}
