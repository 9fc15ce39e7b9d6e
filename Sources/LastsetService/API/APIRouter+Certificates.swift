import LastsetCore
import LastsetEngine
import LastsetHTTP

/// Hand-over certificates (docs/CERTIFICATE.md): `GET /v1/certificates/{job}` and
/// `GET /v1/certificates/{job}/{format}`.
extension APIRouter {
    /// The certificate's content as JSON: every fact and row, and the signing key.
    func showCertificate(_ call: APICall) async throws -> HTTPResponse {
        .api(200, try await certificate(call.parameter("job")))
    }

    /// One file of the certificate: the HTML page or its detached signature, as a download.
    func certificateFile(_ call: APICall) async throws -> HTTPResponse {
        let name = try call.parameter("format")
        guard let format = CertificateFormat(rawValue: name) else {
            let known = CertificateFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw APIError.badRequest(.badParameter, "format \"\(name)\" is not one of \(known)")
        }
        let certificate = try await certificate(call.parameter("job"))
        let bytes: [UInt8]
        do {
            bytes = try await certificates.file(format, of: certificate)
        } catch {
            throw APIError(status: 500, code: .signingFailed, message: "cannot sign the certificate: \(error)")
        }
        return HTTPResponse(
            status: 200,
            headers: [
                "Content-Type": format.contentType,
                "Content-Disposition": "attachment; filename=\"\(format.fileName(job: certificate.job))\"",
            ], body: bytes)
    }

    /// The certificate of `job`, or the error that says why there is none.
    private func certificate(_ job: String) async throws -> HandOverCertificate {
        guard !job.isEmpty else { throw APIError.badRequest(.badParameter, "the job id is empty") }
        let result: Result<HandOverCertificate, CertificateRefusal>
        do {
            result = try await certificates.certificate(job: job)
        } catch {
            throw APIError(status: 500, code: .storage, message: error.description)
        }
        switch result {
        case .success(let certificate): return certificate
        case .failure(let refusal):
            switch refusal {
            case .noRecords: throw APIError.notFound(.notFound, refusal.description)
            case .ambiguous: throw APIError.badRequest(.badParameter, refusal.description)
            case .notAReplay: throw APIError(status: 422, code: .notAReplay, message: refusal.description)
            }
        }
    }
}
