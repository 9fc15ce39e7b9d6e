import Foundation
import LastsetCore
import TestSupport
import XCTest

@testable import LastsetFleet

/// The certificate key through Debian's ssh-keygen: made once (ed25519, 0600), a signature `ssh-keygen -Y verify`
/// accepts for the signer's allowed_signers line and refuses for other bytes or another namespace, a link or a
/// directory at the key's path refused (no key read or made through it).
final class SSHSigningKeyTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "sshkey")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    private func verify(_ bytes: [UInt8], signature: [UInt8], signer: CertificateSigner, namespace: String) throws -> Int32 {
        let allowed = dir.appendingPathComponent("allowed_signers")
        try (signer.allowedSignersLine + "\n").write(to: allowed, atomically: true, encoding: .utf8)
        let sig = dir.appendingPathComponent("data.sig")
        try Data(signature).write(to: sig)
        return try ProgramRun.run(
            URL(fileURLWithPath: "/usr/bin/ssh-keygen"),
            ["-Y", "verify", "-f", allowed.path, "-I", signer.principal, "-n", namespace, "-s", sig.path], input: Data(bytes)
        ).status
    }

    func testTheKeyIsMadeOnceAndItsSignaturesVerifyForThoseBytesOnly() throws {
        let path = dir.appendingPathComponent("certificate-key").path
        let key = SSHSigningKey(path: path)
        let signer = try key.signer(principal: "lastset@test-host")
        XCTAssertTrue(signer.publicKey.hasPrefix("ssh-ed25519 "), signer.publicKey)
        XCTAssertTrue(signer.fingerprint.hasPrefix("SHA256:"), signer.fingerprint)
        let mode = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try key.signer(principal: "lastset@test-host"), signer, "the same key the second time")

        let bytes = Array("a certificate\n".utf8)
        let signature = try key.sign(bytes, namespace: CertificateSigner.namespace)
        XCTAssertTrue(String(decoding: signature, as: UTF8.self).hasPrefix("-----BEGIN SSH SIGNATURE-----"))
        XCTAssertEqual(try key.sign(bytes, namespace: CertificateSigner.namespace), signature, "ed25519: the same bytes")
        XCTAssertEqual(try verify(bytes, signature: signature, signer: signer, namespace: CertificateSigner.namespace), 0)
        XCTAssertNotEqual(
            try verify(bytes + [0x0A], signature: signature, signer: signer, namespace: CertificateSigner.namespace), 0)
        XCTAssertNotEqual(try verify(bytes, signature: signature, signer: signer, namespace: "git"), 0)
    }

    func testALinkOrADirectoryAtTheKeysPathIsRefused() throws {
        let target = dir.appendingPathComponent("elsewhere")
        let link = dir.appendingPathComponent("certificate-key")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
        XCTAssertThrowsError(try SSHSigningKey(path: link.path).signer(principal: "p")) { error in
            XCTAssertTrue("\(error)".contains("is not a regular file"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "nothing made through the link")
        let directory = dir.appendingPathComponent("a-directory")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        XCTAssertThrowsError(try SSHSigningKey(path: directory.path).signer(principal: "p"))
        // A key file ssh-keygen cannot read is its error, quoted.
        let garbage = dir.appendingPathComponent("garbage-key")
        try Data("not a key\n".utf8).write(to: garbage)
        chmod(garbage.path, 0o600)
        XCTAssertThrowsError(try SSHSigningKey(path: garbage.path).sign([1], namespace: "n")) { error in
            XCTAssertTrue("\(error)".contains("ssh-keygen -Y sign failed"), "\(error)")
        }
    }
}
