import Foundation

/// The CPU time the serving side has used so far: the gateways, the durable bound (while it
/// runs) and the PostgreSQL server with its backends. Two samples around a measurement give the
/// CPU each request cost each of them, the figures a model of a fleet on machines of its own
/// starts from.
struct CPUSample: Sendable {
    var gateways: Duration = .zero
    var bound: Duration = .zero
    var database: Duration = .zero

    /// Nil when the gateways do not run on this machine.
    static func now(_ world: BenchWorld) -> CPUSample? {
        let gateways = world.gatewayPIDs.compactMap(ProcessCPU.used)
        guard !gateways.isEmpty, gateways.count == world.gatewayPIDs.count else { return nil }
        var sample = CPUSample(gateways: gateways.reduce(.zero, +))
        sample.bound = world.boundPID.flatMap(ProcessCPU.used) ?? .zero
        if let postmaster = world.database?.postmasterPID {
            sample.database = ([postmaster] + ProcessCPU.children(of: postmaster)).compactMap(ProcessCPU.used)
                .reduce(.zero, +)
        }
        return sample
    }

    /// Runs `body` (which makes `requests` requests) and returns its result with the CPU each
    /// request cost the serving side (nil as `perRequest(since:requests:)` says).
    static func perRequest<T>(_ world: BenchWorld, requests: Int, during body: () async throws -> T) async rethrows
        -> (T, CPUSample?)
    {
        let before = now(world)
        let result = try await body()
        return (result, before.flatMap { now(world)?.perRequest(since: $0, requests: requests) })
    }

    /// Runs `body` and returns its result with what the serving side used meanwhile (nil when
    /// the gateways do not run on this machine): summed over several turns, then divided
    /// (`perRequest(since: CPUSample(), requests:)`).
    static func used<T>(_ world: BenchWorld, during body: () async throws -> T) async rethrows -> (T, CPUSample?) {
        let before = now(world)
        let result = try await body()
        guard let before, let after = now(world) else { return (result, nil) }
        return (
            result,
            CPUSample(
                gateways: after.gateways - before.gateways, bound: after.bound - before.bound,
                database: after.database - before.database)
        )
    }

    /// What several measurements used together; nil when any of them was not measured.
    static func total(_ samples: [CPUSample?]) -> CPUSample? {
        samples.reduce(CPUSample() as CPUSample?) { total, sample in
            guard let total, let sample else { return nil }
            return CPUSample(
                gateways: total.gateways + sample.gateways, bound: total.bound + sample.bound,
                database: total.database + sample.database)
        }
    }

    /// What was used between `earlier` and this sample, per one of `requests`; nil when the
    /// serving processes used less than 0.2 s (the kernel counts in 10 ms ticks: a quick run is
    /// too short to tell).
    func perRequest(since earlier: CPUSample, requests: Int) -> CPUSample? {
        guard (gateways - earlier.gateways) + (bound - earlier.bound) >= .milliseconds(200) else { return nil }
        let count = max(1, requests)
        return CPUSample(
            gateways: (gateways - earlier.gateways) / count, bound: (bound - earlier.bound) / count,
            database: (database - earlier.database) / count)
    }
}

extension CPUSample {
    /// The CPU one `what` cost through TopicGate (`gateway`) against the durable bound
    /// (`bound`): the gateways' against the bound process's, and PostgreSQL's in each run when
    /// the store is on it. None unless the gateways' was measured; without the bound's (it did
    /// not run: a fleet's phone and thing on two brokers; or it used too little CPU to tell, in a
    /// quick run) the rows say they have no baseline.
    static func rows(
        scenario: String, what: String, gateway: CPUSample?, bound: CPUSample?, onPostgres: Bool, peak: Int?
    ) -> [BenchRow] {
        guard let gateway else { return [] }
        let name =
            bound == nil
            ? "(no baseline: the durable bound did not run, or used too little CPU to tell)"
            : "bound: the same requests through a minimal handler"
        var rows = [
            BenchRow(
                scenario: scenario, metric: "CPU per \(what): the gateways", unit: "ms",
                topicGate: gateway.gateways.milliseconds, baseline: bound?.bound.milliseconds, baselineName: name,
                gatewayPeakBytes: peak)
        ]
        if onPostgres {
            rows.append(
                BenchRow(
                    scenario: scenario, metric: "CPU per \(what): PostgreSQL", unit: "ms",
                    topicGate: gateway.database.milliseconds, baseline: bound?.database.milliseconds,
                    baselineName: name, gatewayPeakBytes: peak))
        }
        return rows
    }
}
