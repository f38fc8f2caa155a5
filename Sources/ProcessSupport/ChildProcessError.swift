/// A child process could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) { self.description = description }
}
