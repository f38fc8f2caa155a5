// swift-tools-version:6.1
import PackageDescription

/// Every target is Swift 6 language mode with the two upcoming features the house style asks for.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "TopicGate",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "topicgate", targets: ["topicgate"]),
        /// The Mosquitto plugin, `libTopicGateMosquittoAuth.so`, loaded by the broker.
        .library(name: "TopicGateMosquittoAuth", type: .dynamic, targets: ["TopicGateMosquittoAuth"]),
    ],
    // Exact versions, the ones the tests ran: those of the packages the targets use, then those
    // of the packages they use in turn (named only to pin them; no target imports them). To
    // move to newer ones: change a version here, `swift package update`, run `make test`, and
    // pin what `Package.resolved` then names.
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", exact: "2.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", exact: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        // Pinned only.
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", exact: "1.5.0"),
        .package(url: "https://github.com/apple/swift-algorithms.git", exact: "1.2.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", exact: "1.7.4"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", exact: "1.1.4"),
        .package(url: "https://github.com/apple/swift-atomics.git", exact: "1.3.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-collections.git", exact: "1.6.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", exact: "1.4.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", exact: "1.7.3"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64.git", exact: "1.2.0"),
        .package(url: "https://github.com/apple/swift-http-structured-headers.git", exact: "1.7.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", exact: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-transport-services.git", exact: "1.28.0"),
        .package(url: "https://github.com/apple/swift-numerics.git", exact: "1.1.1"),
        .package(url: "https://github.com/apple/swift-service-context.git", exact: "1.5.1"),
        .package(url: "https://github.com/apple/swift-system.git", exact: "1.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", exact: "1.6.2"),
    ],
    targets: [
        .target(
            name: "TopicGateCore",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TopicGateStore",
            dependencies: [
                "TopicGateCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        /// The broker plugin's checks (JWT, device rule, revocations, control messages): pure C.
        .target(
            name: "TopicGateAuthCore",
            linkerSettings: [.linkedLibrary("crypto"), .linkedLibrary("cjson")]
        ),
        /// The broker plugin's glue to Mosquitto's plugin API v5.
        .target(
            name: "TopicGateMosquittoAuth",
            dependencies: ["TopicGateAuthCore"],
            // Plain C: the Swift runtime the package manager links every library with is dropped,
            // so the broker loads the plugin without any Swift on the machine.
            linkerSettings: [.unsafeFlags(["-static-stdlib"])]
        ),
        .target(
            name: "MQTTBridge",
            dependencies: [
                "CMosquitto",
                "TopicGateCore",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        /// Child processes, loopback port probes and the Mosquitto executable: what the server,
        /// the bench and the tests need to run and watch other programs.
        .target(
            name: "ProcessSupport",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TopicGateServer",
            dependencies: [
                "ProcessSupport",
                "TopicGateCore",
                "TopicGateStore",
                "MQTTBridge",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The document as kept in the repository (checked against the code by a test).
            exclude: ["App/OpenAPI/openapi.json", "Console/screenshots"],
            // The operator console's files, compiled into the executable (`/console`).
            resources: [
                "index.html", "console.css", "console.js", "api.js", "dom.js", "status.js", "overview.js",
                "topics.js", "topic.js", "principals.js", "security.js",
            ].map { .embedInCode("Console/" + $0) },
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TopicGateBench",
            dependencies: [
                "TopicGateCore",
                "TopicGateStore",
                "TopicGateServer",
                "ProcessSupport",
                "MQTTBridge",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "topicgate",
            dependencies: [
                "ProcessSupport",
                "TopicGateServer",
                "TopicGateBench",
                "MQTTBridge",
                "TopicGateStore",
                "TopicGateCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TopicGateBenchTests",
            dependencies: ["TopicGateBench", "ProcessSupport", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TopicGateCoreTests",
            dependencies: ["TopicGateCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TopicGateAuthCoreTests",
            dependencies: [
                "TopicGateAuthCore",
                "TopicGateCore",
                "MQTTBridge",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        /// Test helpers shared by the test targets: free ports, a real Mosquitto, raw sockets,
        /// and the one set of API helpers (`KiiAPI`) for users, tokens, the admin and groups.
        .target(
            name: "TestSupport",
            dependencies: [
                "MQTTBridge",
                "ProcessSupport",
                "TopicGateBench",
                "TopicGateCore",
                "TopicGateStore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MQTTBridgeTests",
            dependencies: ["MQTTBridge", "TestSupport", "TopicGateCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TopicGateStoreTests",
            dependencies: [
                "TopicGateStore", "TopicGateCore", "TestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        /// In-process tests of the router and the services (no sockets, no broker).
        .testTarget(
            name: "TopicGateServerTests",
            dependencies: [
                "TopicGateServer",
                "TopicGateStore",
                "TopicGateCore",
                "TestSupport",
                "MQTTBridge",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        /// End to end: the `topicgate` executable the build made, real Mosquitto brokers, real
        /// clients (sockets, TLS, WebSockets, headless Chromium, the API fuzzer).
        .testTarget(
            name: "TopicGateEndToEndTests",
            dependencies: [
                "ProcessSupport",
                "TopicGateBench",
                "TopicGateServer",
                "TopicGateStore",
                "TopicGateCore",
                "TestSupport",
                "MQTTBridge",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The browser test's page and the server of its origin; the change feed test's proxy.
            exclude: ["Browser", "Proxy"],
            swiftSettings: swiftSettings
        ),
    ]
)
