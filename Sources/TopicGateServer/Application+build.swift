import Foundation
public import Hummingbird
import Logging
import TopicGateCore
public import TopicGateStore

/// Opens the store of `configuration` (creating the data directory and migrating the SQLite
/// file on first use).
public func openStore(configuration: ServerConfiguration) throws -> SQLiteStore {
    try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
    return try SQLiteStore(path: configuration.databasePath)
}

/// The whole HTTP application for `configuration` over `store`. The executable and the tests
/// both call this, with values, never environment.
public func buildApplication(
    configuration: ServerConfiguration, store: any Store, dispatcher: any PushDispatcher = RecordingPushDispatcher(),
    time: TimeSource = .system
) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "topicgate")
    logger.logLevel = configuration.logLevel
    let hasher = PasswordHasher(cost: configuration.passwordHashCost)
    let environment = ServerEnvironment(
        configuration: configuration, store: store, time: time, hasher: hasher, dispatcher: dispatcher, logger: logger)
    return Application(
        router: buildRouter(environment: environment),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "TopicGate"),
        logger: logger)
}

func buildRouter(environment: ServerEnvironment) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: KiiErrorMiddleware())
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.add(middleware: CORSMiddleware(allowOrigin: .all, allowHeaders: [.authorization, .contentType, .accept]))
    TokenController(environment: environment).addRoutes(to: router)
    OnboardingController(environment: environment).addRoutes(to: router)
    let app = router.group("api/apps/:appID")
    UserController(environment: environment).addRoutes(to: app)
    GroupController(environment: environment).addRoutes(to: app)
    ThingController(environment: environment).addRoutes(to: app)
    TopicController(environment: environment).addRoutes(to: app)
    return router
}
