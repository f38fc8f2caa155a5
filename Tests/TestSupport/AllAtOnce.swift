/// Runs `body` for `0..<count` all at once (one task each) and returns what each returned, in
/// the order they finished: the requests a test races against each other.
public func allAtOnce<Result: Sendable>(
    _ count: Int, _ body: @escaping @Sendable (_ index: Int) async throws -> Result
) async throws -> [Result] {
    try await withThrowingTaskGroup(of: Result.self) { group in
        for index in 0..<count { group.addTask { try await body(index) } }
        return try await group.reduce(into: []) { $0.append($1) }
    }
}
