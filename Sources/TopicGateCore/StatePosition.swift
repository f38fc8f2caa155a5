/// Where a state stands in its thing's history: when it was recorded, then the order in which
/// states were written (several may share a millisecond). A page of a history query ends at one;
/// its `key` is the query's `nextPaginationKey`.
public struct StatePosition: Sendable, Hashable, Comparable {
    public var recordedAt: UnixMillis
    public var sequence: Int64

    public init(recordedAt: UnixMillis, sequence: Int64) {
        self.recordedAt = recordedAt
        self.sequence = sequence
    }

    /// `<recordedAt>.<sequence>`.
    public var key: String { "\(recordedAt.rawValue).\(sequence)" }

    /// A position from its key; `INVALID_INPUT_DATA` for anything else.
    public init(key: String) throws(KiiError) {
        let parts = key.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let time = Int64(parts[0]), let sequence = Int64(parts[1]) else {
            throw KiiError.invalidInput("'paginationKey' is not one this server gave.", field: "paginationKey")
        }
        self.init(recordedAt: UnixMillis(time), sequence: sequence)
    }

    public static func < (a: StatePosition, b: StatePosition) -> Bool {
        (a.recordedAt.rawValue, a.sequence) < (b.recordedAt.rawValue, b.sequence)
    }
}
