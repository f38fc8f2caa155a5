import Synchronization
import TopicGateCore

/// The thing and issuer of the commands this gateway created lately, for their results: a
/// thing reports them moments after it received the command, and these two facts of a command
/// never change. A command leaves the store only with its thing, which the results' request
/// must find first, so what is kept here never answers for a command that is gone. Commands
/// created by another gateway, or longer ago than the last `capacity`, are read from the store.
final class RecentCommands: Sendable {
    typealias Key = InApp<CommandID>

    private let entries = Mutex<[Key: (thing: ThingID, issuer: Owner)]>([:])
    /// At most this many commands are kept; past it the memory starts over.
    let capacity: Int

    init(capacity: Int = 10_000) { self.capacity = capacity }

    /// Once the command is stored.
    func created(_ command: Command) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[Key(command.appID, command.id)] = (command.thing, command.issuer)
        }
    }

    func issuer(appID: AppID, id: CommandID) -> (thing: ThingID, issuer: Owner)? {
        entries.withLock { $0[Key(appID, id)] }
    }
}
