import Foundation
public import NIOSSL

/// A certificate chain and its private key (PEM files), and optionally a CA bundle: what a TLS
/// listener serves.
public struct TLSFiles: Sendable, Equatable {
    /// The certificate, followed by any intermediates.
    public var certificate: String
    public var privateKey: String
    /// A CA bundle sent along with the chain (Mosquitto's `cafile`); optional.
    public var certificateAuthority: String?

    public init(certificate: String, privateKey: String, certificateAuthority: String? = nil) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.certificateAuthority = certificateAuthority
    }

    /// The server side of TLS with these files (TLS 1.2 and up, NIOSSL's default ciphers).
    public func serverConfiguration() throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMFile(certificate)
        guard !chain.isEmpty else { throw TLSFilesError("\(certificate) holds no PEM certificate.") }
        let key = try NIOSSLPrivateKey(file: privateKey, format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        if let certificateAuthority {
            configuration.trustRoots = .file(certificateAuthority)
        }
        return configuration
    }

    /// Loads both files once, so that a wrong path or a key that is not PEM stops `serve` at
    /// start with a clear message rather than failing every handshake.
    public func check() throws {
        for path in [certificate, privateKey] + (certificateAuthority.map { [$0] } ?? [])
        where !FileManager.default.isReadableFile(atPath: path) {
            throw TLSFilesError("Cannot read the TLS file \(path).")
        }
        do {
            _ = try serverConfiguration()
        } catch let error as TLSFilesError {
            throw error
        } catch {
            throw TLSFilesError("The TLS files \(certificate) and \(privateKey) cannot be loaded: \(error).")
        }
    }
}

/// A TLS file that cannot be used, with what to fix.
public struct TLSFilesError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
