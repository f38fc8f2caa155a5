import CoreMetrics
import Prometheus
import TopicGateCore

/// The gateway's metrics, through swift-metrics into one Prometheus registry per application
/// (never the process-wide bootstrap, so that tests and embedders can run several). Gauges
/// that mirror the database (outbox depth, command states) are read when scraped.
final class ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    private let decisions: [String: CoreMetrics.Counter]
    private let pushesPublished: CoreMetrics.Counter
    private let pushesAcknowledged: CoreMetrics.Counter
    private let pushesFailed: CoreMetrics.Counter
    private let pushesDeadLettered: CoreMetrics.Counter

    init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(5),
        ]
        self.registry = registry
        self.factory = factory
        var decisions: [String: CoreMetrics.Counter] = [:]
        for action in ACLAction.allCases {
            for result in ["allowed", "denied"] {
                decisions[action.rawValue + result] = CoreMetrics.Counter(
                    label: "topicgate_access_decisions_total",
                    dimensions: [("action", action.rawValue), ("result", result)],
                    factory: factory)
            }
        }
        self.decisions = decisions
        pushesPublished = CoreMetrics.Counter(label: "topicgate_pushes_published_total", factory: factory)
        pushesAcknowledged = CoreMetrics.Counter(label: "topicgate_pushes_acknowledged_total", factory: factory)
        pushesFailed = CoreMetrics.Counter(label: "topicgate_pushes_failed_total", factory: factory)
        pushesDeadLettered = CoreMetrics.Counter(label: "topicgate_pushes_dead_lettered_total", factory: factory)
    }

    /// One answered HTTP request: counted by route pattern, method and status, and timed.
    func request(route: String, method: String, status: Int, duration: Duration) {
        let dimensions = [("route", route), ("method", method), ("status", String(status))]
        CoreMetrics.Counter(label: "topicgate_http_requests_total", dimensions: dimensions, factory: factory)
            .increment()
        CoreMetrics.Timer(
            label: "topicgate_http_request_duration_seconds", dimensions: [("route", route), ("method", method)],
            factory: factory
        )
        .recordNanoseconds(duration.nanoseconds)
    }

    /// One ACL decision for a subscribe or a send.
    func decision(_ decision: AccessDecision) {
        decisions[decision.action.rawValue + (decision.allowed ? "allowed" : "denied")]?.increment()
    }

    /// Publications handed to the broker, and how many it acknowledged or not.
    func pushes(published: Int, failed: Int) {
        pushesPublished.increment(by: published)
        pushesAcknowledged.increment(by: published - failed)
        pushesFailed.increment(by: failed)
    }

    /// A message moved from the outbox to the dead letters.
    func deadLettered() {
        pushesDeadLettered.increment()
    }

    /// The exposition text, after setting the gauges read at scrape time.
    func exposition(outboxDepth: Int, deadLetters: Int, brokerConnected: Bool?, commandStates: [CommandState: Int])
        -> [UInt8]
    {
        CoreMetrics.Gauge(label: "topicgate_outbox_depth", factory: factory).record(outboxDepth)
        CoreMetrics.Gauge(label: "topicgate_dead_letters", factory: factory).record(deadLetters)
        if let brokerConnected {
            CoreMetrics.Gauge(label: "topicgate_mqtt_connected", factory: factory).record(brokerConnected ? 1 : 0)
        }
        for state in CommandState.allCases {
            CoreMetrics.Gauge(label: "topicgate_commands", dimensions: [("state", state.rawValue)], factory: factory)
                .record(commandStates[state] ?? 0)
        }
        return registry.emitToBuffer()
    }
}

extension Duration {
    /// The whole duration in nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled + attoseconds / 1_000_000_000
    }
}
