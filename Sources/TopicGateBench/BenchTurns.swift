/// TopicGate and its baseline taking turns, a block of requests each, so that both meet the same
/// moments of a shared disk and host.
enum BenchTurns {
    /// How many turns each side takes.
    static let blocks = 5

    /// The turns `total` requests take: `blocks`, fewer when a turn would hold fewer than
    /// `least` requests; one when there is no baseline to alternate with.
    static func count(_ total: Int, least: Int, alternating: Bool = true) -> Int {
        alternating ? min(blocks, max(1, total / least)) : 1
    }

    /// The requests of turn `turn` of `turns`, sharing `total` as evenly as they can.
    static func share(of total: Int, turn: Int, of turns: Int) -> Int {
        total / turns + (turn < total % turns ? 1 : 0)
    }
}
