/// A benchmark that could not run as planned, with what went wrong.
public struct BenchError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
