import HTTPTypes
import Hummingbird
import NIOCore
import TopicGateCore

/// `GET /console`: the operator console, plain HTML, CSS and ES modules compiled into the
/// executable. Every page and module is served with a strict Content-Security-Policy (only
/// this origin's scripts, styles and API; no inline code, no frames), and the console does
/// everything through the admin HTTP API with a token it keeps in the tab's sessionStorage.
struct ConsoleController: Sendable {
    /// A file of the console: its bytes and media type.
    struct Asset: Sendable {
        let body: ByteBuffer
        let mediaType: String
    }

    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The console's files by the name they are served under (`/console/<name>`).
    static let assets: [String: Asset] = {
        let javaScript = "text/javascript; charset=utf-8"
        let files: [(String, [UInt8], String)] = [
            ("index.html", PackageResources.index_html, "text/html; charset=utf-8"),
            ("console.css", PackageResources.console_css, "text/css; charset=utf-8"),
            ("console.js", PackageResources.console_js, javaScript),
            ("api.js", PackageResources.api_js, javaScript),
            ("dom.js", PackageResources.dom_js, javaScript),
            ("status.js", PackageResources.status_js, javaScript),
            ("overview.js", PackageResources.overview_js, javaScript),
            ("topics.js", PackageResources.topics_js, javaScript),
            ("topic.js", PackageResources.topic_js, javaScript),
            ("principals.js", PackageResources.principals_js, javaScript),
            ("security.js", PackageResources.security_js, javaScript),
        ]
        return Dictionary(
            uniqueKeysWithValues: files.map { ($0.0, Asset(body: ByteBuffer(bytes: $0.1), mediaType: $0.2)) })
    }()

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("console") { _, _ in Self.response(Self.assets["index.html"]!) }
        router.get("console/:file") { _, context in
            guard let asset = context.parameters.get("file").flatMap({ Self.assets[$0] }) else {
                throw KiiError(.notFound, "The console has no such file.")
            }
            return Self.response(asset)
        }
    }

    static func response(_ asset: Asset) -> Response {
        Response(status: .ok, headers: headers(mediaType: asset.mediaType), body: ResponseBody(byteBuffer: asset.body))
    }

    static func headers(mediaType: String) -> HTTPFields {
        [
            .contentType: mediaType,
            .contentSecurityPolicy: contentSecurityPolicy,
            .xContentTypeOptions: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("X-Frame-Options")!: "DENY",
            // The files change with the executable; revalidating costs little next to a stale console.
            .cacheControl: "no-cache",
        ]
    }
}
