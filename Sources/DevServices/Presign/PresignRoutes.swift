import EmbeddedHTTP
import Foundation

/// The presign endpoint's request handling; runs on connection threads.
struct PresignRoutes: Sendable {
    /// The store upload URLs point into.
    let store: LocalObjectStore
    /// Path, lifetime and policy.
    let configuration: PresignService.Configuration
    /// The service's faults (presign faults are applied here; transport faults around the handler).
    let faults: FaultPlan
    /// Where calls are recorded.
    let log: PresignCallLog

    /// Routes one request head: `POST {path}` reads its JSON body, anything else is refused.
    func handle(_ head: HTTPRequestHead) -> HTTPRequestAction {
        if let refusal = PostOnlyRoute.refusal(of: head, path: configuration.path) { return refusal }
        return .readBody(CollectedBody(limit: configuration.requestBodyLimit) { [self] body in
            answer(body, path: head.path, traceparent: head.header("traceparent"))
        })
    }

    private func answer(_ body: [UInt8], path: String, traceparent: String?) -> ServerResponse {
        let request: PresignWire.Request
        do {
            request = try PresignWire.Request(reading: MalformedBody.fields(of: body))
        } catch {
            return JSONResponse.error(400, code: "ERR_BAD_REQUEST", message: "not a presign request: \(error)")
        }
        guard !request.batchId.isEmpty, !request.receiver.id.isEmpty,
              request.files.allSatisfy({ !$0.fileId.isEmpty })
        else {
            return JSONResponse.error(400, code: "ERR_BAD_REQUEST", message: "batchId, receiver.id and fileIds are required")
        }
        if request.files.count > 1,
           case .failMultiFileCalls(let status)? = faults.claim([.failMultiFileCalls], path: path, fileId: nil).first {
            record(request, files: request.files.map { record($0, key: nil, refusal: nil) }, status: status, traceparent: traceparent)
            return JSONResponse.error(status, code: "ERR_PRESIGN_BATCH_FAILED", message: "the batch could not be presigned")
        }
        var answers: [PresignWire.Answer] = []
        var records: [PresignedFile] = []
        for file in request.files {
            let (answer, record) = presign(file, of: request, path: path)
            answers.append(answer)
            records.append(record)
        }
        record(request, files: records, status: 200, traceparent: traceparent)
        return JSONResponse.make(200, PresignWire.Response(files: answers).json)
    }

    private func presign(_ file: PresignWire.Request.File, of request: PresignWire.Request,
                         path: String) -> (PresignWire.Answer, PresignedFile) {
        let mimeType = file.mimeType ?? "application/octet-stream"
        let fileFaults = faults.claim(Fault.Kind.perFile, path: path, fileId: file.fileId)
        var refusal = configuration.policy.refusal(receiverId: request.receiver.id, mimeType: mimeType, size: file.size)
        var expired = false
        var malformedURL: String?
        for fault in fileFaults {
            switch fault {
            case .refuseFile(let code, let message): refusal = PresignRefusal(code: code, message: message)
            case .expiredURLs: expired = true
            case .malformedURLs(let url): malformedURL = url
            default: break
            }
        }
        let key = ObjectKeyLayout.key(batchId: request.batchId, fileId: file.fileId, name: file.name)
        let now = Date().timeIntervalSince1970.rounded(.down)
        let expiresAt = Date(timeIntervalSince1970: expired ? now - 60 : now + configuration.urlLifetime.seconds)
        if refusal == nil {
            do {
                let uploadURL = try malformedURL ?? store.signedURL(method: "PUT", key: key, expiresAt: expiresAt)
                let target = PresignWire.Target(
                    fileId: file.fileId, uploadUrl: uploadURL, method: "PUT", headers: ["content-type": mimeType],
                    fileUrl: try store.url(forKey: key),
                    expiresAt: Date.ISO8601FormatStyle().format(expiresAt))
                return (.target(target), record(file, key: key, refusal: nil))
            } catch {
                refusal = PresignRefusal(code: "ERR_PRESIGNED_URL_FAILED", message: "cannot sign \(key): \(error)")
            }
        }
        let refused = refusal ?? PresignRefusal(code: "ERR_PRESIGNED_URL_FAILED", message: "refused")
        return (.refusal(PresignWire.Refusal(fileId: file.fileId, error: refused)),
                record(file, key: nil, refusal: refused))
    }

    private func record(_ file: PresignWire.Request.File, key: String?, refusal: PresignRefusal?) -> PresignedFile {
        PresignedFile(fileId: file.fileId, name: file.name, mimeType: file.mimeType ?? "application/octet-stream",
                      size: file.size, objectKey: key, refusal: refusal)
    }

    private func record(_ request: PresignWire.Request, files: [PresignedFile], status: Int, traceparent: String?) {
        let call = PresignCall(batchId: request.batchId, receiverId: request.receiver.id,
                               receiverType: request.receiver.type, sender: request.sender,
                               parentMessageId: request.parentMessageId, files: files, status: status, traceparent: traceparent)
        log.append(call)
    }
}
