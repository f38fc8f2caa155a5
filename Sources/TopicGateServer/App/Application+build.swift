import Foundation
public import Hummingbird
import HummingbirdTLS
import Logging
import MQTTBridge
import ServiceLifecycle
public import TopicGateStore

/// Opens the store of `configuration`: the PostgreSQL database it names, or else the SQLite
/// file of the data directory; either is migrated on first use. The data directory is created
/// in both cases (it holds the broker's secret), readable by the gateway's user only, like the
/// SQLite file.
public func openStore(configuration: ServerConfiguration) async throws -> any Store {
    if geteuid() == 0, let refusal = PrivilegedPath.refusal(configuration.dataDirectory, what: "data folder") {
        throw DataDirectory.Refused(description: refusal)
    }
    try DataDirectory.prepare(
        configuration.dataDirectory, traversable: EmbeddedBroker.dropsPrivileges(configuration.push))
    if let database = configuration.database {
        return try await PostgresStore.open(database, feed: configuration.databaseFeed)
    }
    let store = try SQLiteStore(path: configuration.databasePath)
    try DataDirectory.restrictFile(configuration.databasePath)
    return store
}

/// The whole application for `configuration` over `store`: the HTTP API and, when
/// `configuration.push` is set, the embedded broker, the gateway's broker link and the push
/// pipeline (started in that order, stopped in reverse, the HTTP server last up and first
/// down). The executable and the tests both call this, with values, never environment.
/// `dispatcher` replaces the push pipeline (the router tests record sends with one of their own).
/// `drain`: set while the gateway drains before a stop (`GatewayShutdown`); `/ready` says so.
public func buildApplication(
    configuration: ServerConfiguration, store: any Store, dispatcher: (any PushDispatcher)? = nil,
    time: TimeSource = .system, drain: GatewayDrain = GatewayDrain()
) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "topicgate", metadataProvider: RequestID.metadataProvider)
    logger.logLevel = configuration.logLevel
    let hasher = PasswordHasher(cost: configuration.passwordHashCost)
    let metrics = ServerMetrics()
    var services: [any Service] = []
    var signer: MQTTCredentialSigner?
    var pushDispatcher: any PushDispatcher = dispatcher ?? PushOffDispatcher()
    var brokers: BrokerFleet?
    let presence = DevicePresence()
    if let push = configuration.push {
        let pushSigner = MQTTCredentialSigner(
            secret: try MQTTSecret.loadOrCreate(at: push.secretFile), form: push.credentialForm)
        signer = pushSigner
        let wakeup = Wakeup()
        if case .embedded(let embedded) = push.broker {
            let broker = EmbeddedBroker(
                configuration: embedded, secretFile: push.secretFile, maximumPacketSize: push.maximumPacketSize,
                listeners: push.listeners, pushLife: push.life, logger: logger)
            // What can be refused before anything starts is refused here (a template others may
            // write, a missing plugin, a folder it cannot make), not by a service that stops the
            // others midway through their start.
            try broker.prepare()
            services.append(broker)
        }
        // One link per broker; new installations go to the broker that serves fewest.
        let fleet = BrokerFleet(
            directory: BrokerDirectory(brokers: push.brokers),
            links: try push.brokers.map { address in
                try BrokerLink(
                    address: address, configuration: push, signer: pushSigner, store: store, time: time,
                    logger: logger, presence: presence, onConnected: { wakeup.signal() })
            })
        services += fleet.links as [any Service]
        if push.relaysWebSockets {
            services += try MQTTWebSocketRelay.services(
                push: push,
                limits: ConnectionLimits(
                    total: configuration.maximumWebSocketConnections,
                    perAddress: configuration.maximumWebSocketConnectionsPerAddress),
                idleTimeout: configuration.idleTimeout.map { .nanoseconds(Int64($0.nanoseconds)) },
                readTimeout: configuration.readTimeout.map { .nanoseconds(Int64($0.nanoseconds)) }, logger: logger)
        }
        brokers = fleet
        services.append(PresenceKeeper(presence: presence, store: store, logger: logger))
        let pipeline = PushPipeline(
            store: store, devices: LiveEndpoints(store: store), link: fleet, wakeup: wakeup, time: time,
            logger: logger, metrics: metrics, completion: CommandDelivery(store: store),
            gatewayID: configuration.gatewayID, outboxLease: configuration.outboxLease, presence: presence)
        services += pipeline.services
        if dispatcher == nil { pushDispatcher = pipeline }
    }
    let environment = ServerEnvironment(
        configuration: configuration, store: store, time: time, hasher: hasher, dispatcher: pushDispatcher,
        link: brokers ?? DisconnectedDeviceLink(),
        signer: signer, logger: logger, metrics: metrics, presence: presence)
    if let feed = store as? any StoreChangeFeed, case .sharedGenerations(let generations) = store.caching {
        services.append(
            CacheInvalidationService(
                feed: feed, topics: environment.topicCache, apps: environment.authenticator.apps,
                generations: generations, logger: logger))
    }
    if let idleDays = configuration.pseudoUserIdleDays {
        services.append(
            PseudoUserCleanupService(
                cleanup: environment.cleanup, idleDays: idleDays, interval: configuration.pseudoUserCleanupInterval,
                leases: store, gatewayID: configuration.gatewayID, time: time, logger: logger))
    }
    services.append(
        TriggerScheduler(triggers: environment.triggers, store: store, time: time, logger: logger))
    // States that things publish on `<mqttTopic>/state` reach the state service.
    let states = environment.states
    brokers?.receiveStates { message in
        await states.ingest(topic: message.topic, payload: message.payload, receivedAt: message.receivedAt)
    }
    let channel = KiiHTTP1Channel.builder(
        idleTimeout: configuration.idleTimeout.map { .nanoseconds(Int64($0.nanoseconds)) },
        limits: ConnectionLimits(
            total: configuration.maximumConnections, perAddress: configuration.maximumConnectionsPerAddress),
        readTimeout: configuration.readTimeout.map { .nanoseconds(Int64($0.nanoseconds)) })
    return Application(
        responder: GatewayResponder(routes: buildRouter(environment: environment, drain: drain).buildResponder()),
        server: try configuration.tls.map { try .tls(channel, tlsConfiguration: $0.serverConfiguration()) } ?? channel,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "TopicGate"),
        services: services,
        logger: logger)
}

/// The routes: each controller's table, its open routes (health, metrics, the API document,
/// the console, the app-less token endpoint) on the router, the others under
/// `/api/apps/{appID}` and `/thing-if/apps/{appID}`, where `CallerMiddleware` puts the caller in
/// the context (always anonymous on the login routes).
func buildRouter(environment: ServerEnvironment, drain: GatewayDrain = GatewayDrain()) -> Router<
    TopicGateRequestContext
> {
    typealias Context = TopicGateRequestContext
    let router = Router(context: Context.self)
    router.add(middleware: RequestTracingMiddleware(metrics: environment.metrics))
    router.add(middleware: CrossOriginMiddleware(policy: environment.configuration.crossOrigin))
    router.add(middleware: KiiErrorMiddleware())
    let body = environment.body
    let location = environment.location
    let operations = OperationsService(store: environment.store)
    let api = APIRouter(
        router, authenticated: CallerMiddleware(authenticator: environment.authenticator),
        anonymous: CallerMiddleware(authenticator: environment.authenticator, readsCredentials: false))

    api.add(HealthController(operations: operations, link: environment.brokerLink, drain: drain))
    api.add(
        MetricsController(
            metrics: environment.metrics, counted: ScrapeCounts(store: environment.store),
            link: environment.brokerLink, token: environment.configuration.metricsToken,
            caching: environment.store.caching))
    api.add(OpenAPIController())
    api.add(ConsoleController())
    api.add(
        OperationsController(
            operations: operations, cleanup: environment.cleanup, body: body, metrics: environment.metrics,
            time: environment.time, link: environment.brokerLink, presence: environment.presence))
    api.add(
        PrincipalController(
            inspector: PrincipalInspector(
                store: environment.store, facts: environment.topics.facts, presence: environment.presence,
                time: environment.time)))
    api.add(PushTraceController(topics: environment.topics, presence: environment.presence))
    api.add(TokenController(login: environment.login, authenticator: environment.authenticator, body: body))
    api.add(UserController(users: environment.users, body: body, location: location))
    api.add(LinkController(links: environment.links, body: body, location: location))
    api.add(GroupController(groups: environment.groups, body: body, location: location))
    api.add(ThingController(things: environment.things, body: body, location: location))
    api.add(GatewayController(gateways: environment.gateways, body: body))
    api.add(InstallationController(installations: environment.installations, body: body, location: location))
    api.add(OnboardingController(onboarding: environment.onboarding, body: body))
    api.add(
        ThingIFController(
            things: environment.things, commands: environment.commands, states: environment.states, body: body))
    api.add(TriggerController(triggers: environment.triggers, body: body))
    api.add(TopicController(topics: environment.topics, body: body))
    return router
}
