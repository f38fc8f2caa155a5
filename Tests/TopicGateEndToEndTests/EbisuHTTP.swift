import Foundation
import TestSupport
import TopicGateCore

/// Speaks HTTP exactly as Kii's C thing SDK (ebisu v2.0.0, its `khc` client) does: an
/// absolute-form request target, an upper-case `HOST:` header, ebisu's headers (a dummy app
/// key), every body chunked (a GET too, which sends the empty last chunk), `Connection: Close`
/// spelled with a capital C, and the response read until the server closes the connection.
struct EbisuHTTP {
    let port: Int
    let appID: String

    struct Reply {
        let status: Int
        let headers: String
        let object: [String: JSONValue]
    }

    /// `chunkSize`: khc sends the body in pieces of its stream buffer; small here so that even
    /// short bodies arrive in several chunks.
    func call(
        _ method: String, _ path: String, token: String? = nil, contentType: String? = nil, body: String = "",
        chunkSize: Int = 32
    ) async throws -> Reply {
        let host = "127.0.0.1:\(port)"
        var request = "\(method) http://\(host)\(path) HTTP/1.1\r\nHOST: \(host)\r\n"
        request += "X-Kii-Appid: \(appID)\r\nX-Kii-Appkey: k\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        if let contentType { request += "Content-Type: \(contentType)\r\n" }
        request += "Transfer-Encoding: chunked\r\nConnection: Close\r\n\r\n"
        var bytes = Array(body.utf8)
        while !bytes.isEmpty {
            let chunk = bytes.prefix(chunkSize)
            request += String(chunk.count, radix: 16) + "\r\n" + String(decoding: chunk, as: UTF8.self) + "\r\n"
            bytes.removeFirst(chunk.count)
        }
        request += "0\r\n\r\n"
        let connection = try RawConnection(port: port, timeout: .seconds(15))
        try connection.send(request)
        // ebisu reads until the server closes; a server that keeps the connection open makes
        // this throw on the timeout.
        let response = String(decoding: try await connection.receiveUntilClosed(), as: UTF8.self)
        guard let split = response.range(of: "\r\n\r\n"), response.hasPrefix("HTTP/1.") else {
            throw TestFailure("not an HTTP response: \(response)")
        }
        let head = String(response[..<split.lowerBound])
        let status = Int(head.dropFirst(9).prefix(3)) ?? 0
        let body = String(response[split.upperBound...])
        return Reply(status: status, headers: head, object: (try? JSONReader.object(Array(body.utf8))) ?? [:])
    }
}
