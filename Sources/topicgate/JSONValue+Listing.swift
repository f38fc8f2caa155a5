import TopicGateCore

extension JSONValue {
    /// The objects of the array under `key` of this object: the rows of a listing answer
    /// (none when there is no such array).
    func objects(_ key: String) -> [[String: JSONValue]] {
        objectValue?[key]?.arrayValue?.compactMap(\.objectValue) ?? []
    }
}
