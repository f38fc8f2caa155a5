import Synchronization

/// How many connections the API holds at once, in all and from one client address (an IPv6
/// client by its /64): past either cap a new connection is answered 503 and closed at once, so
/// that one client's idle or half-sent connections cannot take every descriptor the gateway has.
final class ConnectionLimits: Sendable {
    let total: Int?
    let perAddress: Int?
    private let open = Mutex<(total: Int, byAddress: [String: Int])>((0, [:]))

    init(total: Int?, perAddress: Int?) {
        self.total = total
        self.perAddress = perAddress
    }

    /// Counts a new connection from the client `key` (`AddressGroup.key` of its address) in;
    /// false when a cap is reached (nothing counted).
    func admit(_ key: String?) -> Bool {
        open.withLock { open in
            if let total, open.total >= total { return false }
            if let perAddress, let key, open.byAddress[key, default: 0] >= perAddress { return false }
            open.total += 1
            if let key { open.byAddress[key, default: 0] += 1 }
            return true
        }
    }

    /// An admitted connection of the client `key` closed.
    func release(_ key: String?) {
        open.withLock { open in
            open.total -= 1
            guard let key, let count = open.byAddress[key] else { return }
            open.byAddress[key] = count > 1 ? count - 1 : nil
        }
    }
}
