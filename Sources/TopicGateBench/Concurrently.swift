import Synchronization

/// Runs `body` for items `0..<items` on `workers` concurrent workers (worker `w` takes the next
/// free item each time), so that at most `workers` are in flight.
func concurrently(
    workers: Int, items: Int, _ body: @escaping @Sendable (_ worker: Int, _ item: Int) async throws -> Void
) async throws {
    let next = Counter()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<max(1, min(workers, items)) {
            group.addTask {
                while true {
                    let item = next.take()
                    guard item < items else { return }
                    try await body(worker, item)
                }
            }
        }
        try await group.waitForAll()
    }
}

/// Requests per second of `items` requests spread over `connections` (one worker each), every
/// one answered 200; `request` gets its connection and the item's number.
func requestsPerSecond(
    _ connections: [BenchHTTPConnection], items: Int, what: String,
    _ request: @escaping @Sendable (BenchHTTPConnection, Int) async throws -> BenchHTTPConnection.Response
) async throws -> Double {
    let began = ContinuousClock.now
    try await concurrently(workers: connections.count, items: items) { worker, index in
        let response = try await request(connections[worker], index)
        guard response.status == 200 else {
            throw BenchError("\(what) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
    }
    return rate(items, ContinuousClock.now - began)
}

/// Items per second over `elapsed`.
func rate(_ items: Int, _ elapsed: Duration) -> Double {
    let seconds = elapsed.seconds
    return seconds > 0 ? Double(items) / seconds : 0
}

/// The next item to take, shared by the workers.
private final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
}
