import CoreMetrics
import Prometheus
import Synchronization
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
    private let outboxDepth: CoreMetrics.Gauge
    private let deadLetters: CoreMetrics.Gauge
    /// Made on the first scrape with push on: without a broker there is no such gauge.
    private let mqttConnected = Mutex<CoreMetrics.Gauge?>(nil)
    /// Made on the first scrape on a store shared by several gateways.
    private let cachesTrusted = Mutex<CoreMetrics.Gauge?>(nil)
    private let commands: [CommandState: CoreMetrics.Gauge]
    /// The request counters by route, method and status, and the timers by route and method,
    /// made on a route's first request and kept (routes are few: the router's patterns).
    private let requestCounters = Mutex<[String: CoreMetrics.Counter]>([:])
    private let requestTimers = Mutex<[String: CoreMetrics.Timer]>([:])
    /// The same events, summed by app for the console (`totals(appID:)`): an app's admin sees
    /// only its own app's traffic.
    private let summed = Mutex<[AppID: GatewayTotals]>([:])

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
        outboxDepth = CoreMetrics.Gauge(label: "topicgate_outbox_depth", factory: factory)
        deadLetters = CoreMetrics.Gauge(label: "topicgate_dead_letters", factory: factory)
        var commands: [CommandState: CoreMetrics.Gauge] = [:]
        for state in CommandState.allCases {
            commands[state] = CoreMetrics.Gauge(
                label: "topicgate_commands", dimensions: [("state", state.rawValue)], factory: factory)
        }
        self.commands = commands
    }

    /// One answered HTTP request: counted by route pattern, method and status, and timed.
    func request(route: String, method: String, status: Int, duration: Duration) {
        let counter = requestCounters.withLock { counters in
            let key = "\(method) \(status) \(route)"
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(
                label: "topicgate_http_requests_total",
                dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
        let timer = requestTimers.withLock { timers in
            let key = "\(method) \(route)"
            if let timer = timers[key] { return timer }
            let timer = CoreMetrics.Timer(
                label: "topicgate_http_request_duration_seconds", dimensions: [("route", route), ("method", method)],
                factory: factory)
            timers[key] = timer
            return timer
        }
        timer.recordNanoseconds(duration.nanoseconds)
    }

    /// One ACL decision for a subscribe or a send in `appID`.
    func decision(_ decision: AccessDecision, appID: AppID) {
        decisions[decision.action.rawValue + (decision.allowed ? "allowed" : "denied")]?.increment()
        summed.withLock { summed in
            switch (decision.action, decision.allowed) {
            case (.send, true): summed[appID, default: GatewayTotals()].sendsAllowed += 1
            case (.send, false): summed[appID, default: GatewayTotals()].sendsDenied += 1
            case (.subscribe, true): summed[appID, default: GatewayTotals()].subscribesAllowed += 1
            case (.subscribe, false): summed[appID, default: GatewayTotals()].subscribesDenied += 1
            }
        }
    }

    /// Publications handed to the broker, each of `apps` (its message's app) with whether the
    /// broker acknowledged it.
    func pushes(_ apps: [(appID: AppID, acknowledged: Bool)]) {
        let failed = apps.count { !$0.acknowledged }
        pushesPublished.increment(by: apps.count)
        pushesAcknowledged.increment(by: apps.count - failed)
        pushesFailed.increment(by: failed)
        summed.withLock { summed in
            for (appID, acknowledged) in apps {
                if acknowledged {
                    summed[appID, default: GatewayTotals()].deliveries += 1
                } else {
                    summed[appID, default: GatewayTotals()].deliveriesFailed += 1
                }
            }
        }
    }

    /// A message of `appID` moved from the outbox to the dead letters.
    func deadLettered(appID: AppID) {
        pushesDeadLettered.increment()
        summed.withLock { $0[appID, default: GatewayTotals()].deadLettered += 1 }
    }

    /// What this gateway counted for `appID` since it started.
    func totals(appID: AppID) -> GatewayTotals { summed.withLock { $0[appID] ?? GatewayTotals() } }

    /// The exposition text, after setting the gauges read at scrape time.
    /// The gauge `held` keeps, made under `label` the first time.
    private func gauge(_ held: borrowing Mutex<CoreMetrics.Gauge?>, _ label: String) -> CoreMetrics.Gauge {
        held.withLock { gauge in
            if let gauge { return gauge }
            let made = CoreMetrics.Gauge(label: label, factory: factory)
            gauge = made
            return made
        }
    }

    func exposition(
        outboxDepth: Int, deadLetters: Int, brokerConnected: Bool?, cachesTrusted trusted: Bool? = nil,
        commandStates: [CommandState: Int]
    ) -> [UInt8] {
        self.outboxDepth.record(outboxDepth)
        self.deadLetters.record(deadLetters)
        if let brokerConnected { gauge(mqttConnected, "topicgate_mqtt_connected").record(brokerConnected ? 1 : 0) }
        if let trusted { gauge(cachesTrusted, "topicgate_caches_trusted").record(trusted ? 1 : 0) }
        for (state, gauge) in commands { gauge.record(commandStates[state] ?? 0) }
        return registry.emitToBuffer()
    }
}
