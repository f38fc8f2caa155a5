import Foundation

/// How the gateways reach brokers given as `mqtts://`: which certificates they trust (a PEM CA
/// file, or the system's store) and, for a broker that asks for one, the client certificate
/// and key they present.
public struct BrokerTLS: Sendable, Equatable {
    /// PEM certificates to trust; nil: the system's (`systemCertificates`).
    public var certificateAuthority: String?
    /// A client certificate (PEM) and its key; both or neither.
    public var certificate: String?
    public var privateKey: String?

    /// Where Debian keeps the trusted CA certificates OpenSSL reads.
    public static let systemCertificates = "/etc/ssl/certs"

    public init(certificateAuthority: String? = nil, certificate: String? = nil, privateKey: String? = nil) {
        self.certificateAuthority = certificateAuthority
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// Every file readable, and a certificate only with its key, so that a wrong path stops
    /// `serve` at start rather than failing each connection attempt.
    public func check() throws {
        guard (certificate == nil) == (privateKey == nil) else {
            throw TLSFilesError(
                "A client certificate for the broker needs both --broker-tls-cert and --broker-tls-key.")
        }
        for path in [certificateAuthority, certificate, privateKey].compactMap({ $0 })
        where !FileManager.default.isReadableFile(atPath: path) {
            throw TLSFilesError("Cannot read the TLS file \(path).")
        }
    }
}
