/// `GET /ready`: the database's and the broker's state (each broker's with several), and
/// `ready`, or why not (`NOT_READY` with a message, `draining` before a stop).
struct Readiness: Encodable, Sendable {
    let database: String
    let broker: String
    let brokers: [String: String]?
    let status: String?
    let errorCode: String?
    let message: String?
}
