import TopicGateCore

/// What settled pushes tell the commands they carry, by app: which the broker took for at least
/// one device of their thing (`published`), and which had no device to go to at all
/// (`unreachable`: the thing, or its gateway, had no live MQTT installation).
struct SettledCommands: Sendable, Equatable {
    var published: [AppID: [CommandID]] = [:]
    var unreachable: [AppID: [CommandID]] = [:]

    var isEmpty: Bool { published.isEmpty && unreachable.isEmpty }

    /// The commands of the settled messages among `batch` (indices `settled`): those whose message
    /// went to at least one device (`publishedTo`) are published, those with no publication now or
    /// on an earlier try are unreachable.
    init(of batch: [OutboxMessage], settled: some Sequence<Int>, publishedTo: Set<Int>) {
        for index in settled {
            guard let command = batch[index].commandID else { continue }
            if publishedTo.contains(index) {
                published[batch[index].appID, default: []].append(command)
            } else if batch[index].deliveredBrokers.isEmpty {
                unreachable[batch[index].appID, default: []].append(command)
            }
        }
    }

    init() {}

    mutating func merge(_ other: SettledCommands) {
        published.merge(other.published) { $0 + $1 }
        unreachable.merge(other.unreachable) { $0 + $1 }
    }
}
