import HTTPTypes
import Hummingbird
import NIOCore

/// The console's files, compiled into the executable, and the headers each is served with.
enum ConsoleAssets {
    /// A file of the console: its bytes and media type.
    struct Asset: Sendable {
        let body: ByteBuffer
        let mediaType: String
    }

    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The console's files by the name they are served under (`/console/<name>`).
    static let files: [String: Asset] = {
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
