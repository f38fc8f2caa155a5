import Hummingbird
import Logging
import MQTTBridge
import TopicGateCore
import TopicGateStore

/// The services of a running server, built once from the configuration, the store and the
/// clock: the one place that wires them together. Each controller gets only the services it
/// uses from here (see `buildRouter`).
struct ServerEnvironment: Sendable {
    let configuration: ServerConfiguration
    let store: any Store
    let time: TimeSource
    let authenticator: Authenticator
    let body: RequestBody
    let login: LoginService
    let users: UserService
    let groups: GroupService
    let things: ThingService
    let onboarding: OnboardingService
    let gateways: GatewayService
    let topics: TopicService
    let topicCache: TopicCache
    let installations: InstallationService
    let commands: CommandService
    let states: ThingStateService
    let triggers: TriggerService
    let links: LinkService
    let abuse: AbuseGuard
    let passwords: PasswordCheck
    let audit: SecurityAudit
    let cleanup: PseudoUserCleanup
    let metrics: ServerMetrics
    /// The gateway's MQTT link (DisconnectedDeviceLink when push is off).
    let link: any DeviceLink
    /// Which devices are connected, as the broker plugins report them.
    let presence: DevicePresence

    init(
        configuration: ServerConfiguration, store: any Store, time: TimeSource, hasher: PasswordHasher,
        dispatcher: any PushDispatcher, link: any DeviceLink, signer: MQTTCredentialSigner?,
        logger: Logger, metrics: ServerMetrics, presence: DevicePresence = DevicePresence()
    ) {
        self.metrics = metrics
        self.presence = presence
        self.configuration = configuration
        self.store = store
        self.time = time
        self.link = link
        let tokens = TokenIssuer(store: store, time: time)
        authenticator = Authenticator(
            store: store, time: time, proxyTrust: configuration.abuse.proxyTrust)
        body = RequestBody(maximumSize: configuration.maximumBodySize)
        // One gateway keeps the abuse records in memory; a fleet shares them in its database.
        abuse = AbuseGuard(
            controls: configuration.abuse, time: time,
            ledger: configuration.database == nil ? MemoryAbuseLedger() : SharedAbuseLedger(store: store))
        audit = SecurityAudit(store: store, time: time, logger: logger)
        passwords = PasswordCheck(abuse: abuse, hasher: hasher, audit: audit)
        let newPasswords = NewPasswords(
            hasher: hasher, user: PasswordRule.user.raisingMinimum(to: configuration.minimumPasswordLength),
            thing: .thing)
        links = LinkService(store: store, tokens: tokens, time: time, abuse: abuse, audit: audit)
        let revocation = DeviceRevocation(store: store, link: link, time: time)
        login = LoginService(
            store: store, passwords: passwords, tokens: tokens, abuse: abuse, audit: audit, revocation: revocation,
            adminTokenTTL: configuration.adminTokenTTL)
        topicCache = TopicCache(told: store.caching.generations.topics)
        let status = PrincipalStatus(store: store, time: time, revocation: revocation, audit: audit)
        let accounts = AccountServices(
            newPasswords: newPasswords, passwords: passwords, tokens: tokens, time: time, revocation: revocation,
            audit: audit, abuse: abuse, status: status)
        users = UserService(
            store: store, accounts: accounts,
            // A kept user is about 700 bytes: the 20 000 most recently read stay under 15 MB.
            readable: AccessFactCache(generation: store.relationsGeneration, capacity: 20_000))
        groups = GroupService(store: store, time: time)
        let facts = AccessFacts(store: store)
        things = ThingService(
            store: store, accounts: accounts, facts: facts)
        installations = InstallationService(
            store: store, time: time, push: configuration.push,
            balancer: configuration.push.map {
                BrokerBalancer(directory: BrokerDirectory(brokers: $0.brokers), store: store)
            },
            signer: signer,
            revocation: revocation, installationLimit: configuration.abuse.installationsPerPrincipal)
        gateways = GatewayService(store: store, things: things, tokens: tokens, time: time)
        onboarding = OnboardingService(
            store: store, tokens: tokens, things: things, installations: installations, gateways: gateways)
        commands = CommandService(
            store: store, time: time, things: things, gateways: gateways, dispatcher: dispatcher,
            sizeLimit: configuration.push?.sizeLimit, logger: logger)
        triggers = TriggerService(
            store: store, things: things, commands: commands, time: time, limit: configuration.abuse.triggersPerThing,
            logger: logger)
        states = ThingStateService(
            store: store, time: time, things: things, gateways: gateways, triggers: triggers,
            retention: configuration.stateRetention, abuse: abuse, logger: logger)
        cleanup = PseudoUserCleanup(
            store: store, time: time, revocation: revocation, audit: audit)
        topics = TopicService(
            store: store, time: time, cache: topicCache, facts: facts,
            dispatcher: dispatcher, users: users, logger: logger, metrics: metrics,
            sizeLimit: configuration.push?.sizeLimit, topicLimit: configuration.abuse.topicsPerPrincipal,
            subscriptionLimit: configuration.abuse.subscriptionsPerPrincipal)
    }

    /// Where created resources are (`Location`).
    var location: ResourceLocation { ResourceLocation(baseURL: configuration.publicBaseURL) }

    /// The broker link when push is on.
    var brokerLink: (any DeviceLink)? { configuration.push == nil ? nil : link }
}
