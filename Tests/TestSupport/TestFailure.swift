/// A test precondition that did not hold, with what was expected, so that a failure says what
/// went wrong instead of a bare cancellation.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
