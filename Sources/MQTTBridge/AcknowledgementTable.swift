/// Matches PUBACKs and SUBACKs to the calls that are waiting for them, by libmosquitto's
/// 16-bit message ID, so that an acknowledgement only ever reaches its own publication.
///
/// A message ID says whose acknowledgement it is only while one call holds it: libmosquitto
/// numbers calls one after another and wraps after 65535, and an acknowledgement can even
/// arrive before the call that caused it has learnt its ID. So:
/// - every call that is being made is counted (`beginIssuing`) until its ID is registered
///   (`issued`, QoS 0 sends too); an acknowledgement for an unknown ID is kept only while
///   some call is being made (it can only be one of theirs), and what no call claimed is
///   dropped once none is;
/// - an ID stays taken until its acknowledgement arrives, also after its waiter gave up
///   (`expire`), so that a late acknowledgement is dropped, never given to a later call;
/// - a call whose ID is still taken by an earlier one (libmosquitto wrapped around it) is
///   `ambiguous`: neither will ever take an acknowledgement for that ID (the caller treats it
///   as unacknowledged and sends again; receivers drop duplicates).
///
/// Pure bookkeeping, generic over the waiter, kept inside the client's lock.
struct AcknowledgementTable<Waiter> {
    enum Entry {
        /// Registered; `waiter` is nil until the caller waits.
        case waiting(Waiter?)
        /// Acknowledged before the caller waited (granted QoS for a SUBACK).
        case acknowledged([Int32])
        /// The caller gave up or the ID is ambiguous: its acknowledgement is dropped.
        case abandoned
    }

    /// What `issued` found.
    enum Registration: Equatable {
        case pending
        case acknowledged([Int32])
        case ambiguous
    }

    private(set) var entries: [Int32: Entry] = [:]
    private var earlyAcknowledgements: [Int32: [Int32]] = [:]
    private var issuing = 0

    /// A call is about to be handed to libmosquitto.
    mutating func beginIssuing() {
        issuing += 1
    }

    /// The call begun last got `mid` (nil: libmosquitto refused it, nothing to wait for).
    /// A QoS 0 publication (`awaited: false`) still holds its ID until libmosquitto reports it
    /// sent, so that every ID libmosquitto reports is one the table knows.
    mutating func issued(_ mid: Int32?, awaited: Bool = true) -> Registration {
        issuing -= 1
        defer { if issuing == 0 { earlyAcknowledgements.removeAll() } }
        guard let mid else { return .pending }
        let early = earlyAcknowledgements.removeValue(forKey: mid)
        guard entries[mid] == nil else {
            entries[mid] = .abandoned
            return .ambiguous
        }
        if let early {
            if awaited { entries[mid] = .acknowledged(early) }
            return .acknowledged(early)
        }
        entries[mid] = awaited ? .waiting(nil) : .abandoned
        return .pending
    }

    /// The caller waits for `mid`: `.acknowledged` if that already happened, `.waiting` once
    /// the waiter is kept, `.abandoned` when there is nothing to wait for.
    mutating func wait(_ mid: Int32, _ waiter: Waiter) -> Entry {
        switch entries[mid] {
        case .waiting(nil)?:
            entries[mid] = .waiting(waiter)
            return .waiting(waiter)
        case .acknowledged(let granted)?:
            entries[mid] = nil
            return .acknowledged(granted)
        case .waiting?, .abandoned?, nil:
            return .abandoned
        }
    }

    /// The acknowledgement of `mid` arrived: the waiter to resume, if one waits.
    mutating func acknowledge(_ mid: Int32, granted: [Int32]) -> Waiter? {
        switch entries[mid] {
        case .waiting(let waiter?)?:
            entries[mid] = nil
            return waiter
        case .waiting(nil)?:
            entries[mid] = .acknowledged(granted)
        case .abandoned?:
            entries[mid] = nil
        case .acknowledged?:
            break
        case nil:
            // Before its call learnt the ID; kept only while a call is being made.
            if issuing > 0 { earlyAcknowledgements[mid] = granted }
        }
        return nil
    }

    /// The caller gave up on `mid`: its waiter (to fail), and the ID stays taken until the
    /// late acknowledgement comes.
    mutating func expire(_ mid: Int32) -> Waiter? {
        guard case .waiting(let waiter)? = entries[mid] else { return nil }
        entries[mid] = .abandoned
        return waiter
    }

    /// Every waiter (to fail at shutdown); the table is empty afterwards.
    mutating func removeAll() -> [Waiter] {
        defer {
            entries.removeAll()
            earlyAcknowledgements.removeAll()
        }
        return entries.values.compactMap { if case .waiting(let waiter?) = $0 { waiter } else { nil } }
    }
}
