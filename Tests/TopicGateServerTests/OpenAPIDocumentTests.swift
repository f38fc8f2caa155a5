import Foundation
import Hummingbird
import Logging
import TestSupport
import Testing
import TopicGateCore

@testable import TopicGateServer

/// The OpenAPI document names exactly the routes the router serves, and the copy in the
/// repository is the one the code builds.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    static let repositoryCopy = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/TopicGateServer/App/OpenAPI/openapi.json").standardizedFileURL
        .path

    @Test("Every route the router serves is in the document, and every documented operation is served")
    func routesMatch() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-openapi-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = ServerConfiguration(dataDirectory: directory, passwordHashCost: 4)
        let store = try await openStore(configuration: configuration)
        let environment = ServerEnvironment(
            configuration: configuration, store: store, time: .system, hasher: PasswordHasher(cost: 4),
            dispatcher: RecordingPushDispatcher(), link: DisconnectedDeviceLink(), signer: nil,
            logger: Logger(label: "test"), metrics: ServerMetrics())
        let served = Set(
            buildRouter(environment: environment).routes.map { route in
                let path = route.path.components.map { component in
                    let text = component.description
                    return text.hasPrefix(":") ? "{\(text.dropFirst())}" : text
                }.joined(separator: "/")
                return "\(route.method.rawValue.lowercased()) /\(path)"
            })
        let documented = Set(APIRoutes.operations.map { "\($0.method) \($0.path)" })
        #expect(served.subtracting(documented).sorted() == [], "served but not documented")
        #expect(documented.subtracting(served).sorted() == [], "documented but not served")
        #expect(documented.count == APIRoutes.operations.count, "an operation is listed twice")
        #expect(served.count > 100)
    }

    @Test("The document is OpenAPI 3.1 with unique operation IDs, security schemes and the Kii error")
    func shape() throws {
        let document = try #require(OpenAPIDocument.json().objectValue)
        #expect(document["openapi"] == "3.1.0")
        let ids = APIRoutes.operations.map(OpenAPIDocument.operationID)
        #expect(Set(ids).count == ids.count)
        #expect(
            document["components"]?.objectValue?["securitySchemes"]?.objectValue?.keys.sorted() == ["basic", "bearer"])
        let users = document["paths"]?.objectValue?["/api/apps/{appID}/users"]?.objectValue?["post"]?.objectValue
        #expect(users?["responses"]?.objectValue?["default"] != nil)
        #expect(
            users?["requestBody"]?.objectValue?["content"]?.objectValue?[
                "application/vnd.kii.RegistrationAndAuthorizationRequest+json"] != nil)
    }

    @Test(
        "The copy in the repository is the document the code builds (refresh it with topicgate openapi)"
    )
    func repositoryCopyIsCurrent() throws {
        let copy = try String(contentsOfFile: Self.repositoryCopy, encoding: .utf8)
        #expect(copy == (try OpenAPIDocument.prettyPrinted()))
    }
}
