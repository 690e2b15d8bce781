import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx, started on 127.0.0.1 and an ephemeral port with everything (config, pid, logs, temp files,
/// document root) inside one temporary directory; stopped and removed by `stop()`.
///
/// Locations: `/dav/` takes WebDAV PUT/DELETE; `/checked/` is `/dav/` but demands the headers an upload must
/// carry; `/files/` serves `www/files` (`/slow/` throttled, `/chunked/` without Content-Length); `/fault/…` and
/// `/presign/…`, `/api/…` return canned answers; `/echo` reflects a request's body and headers as JSON.
public final class NginxServer: Sendable {
    /// The port nginx listens on.
    public let port: Int
    /// The temporary directory holding everything of this server.
    public let directory: String
    private let process: Subprocess

    /// The server of the enclosing `.nginx` suite.
    @TaskLocal public static var current: NginxServer?

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// The document root; `/dav/x` lands at `root + "/dav/x"`.
    public var root: String { directory + "/www" }

    /// The URL of `path` on this server.
    public func url(_ path: String) -> String { baseURL + path }

    private init(port: Int, directory: String, process: Subprocess) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// Starts nginx and waits until it accepts connections.
    public static func start() throws -> NginxServer {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("attache-nginx-\(UUID().uuidString)").path
        let manager = FileManager.default
        for sub in ["www/dav", "www/checked", "www/files", "tmp/body", "tmp/proxy", "tmp/fastcgi", "tmp/uwsgi", "tmp/scgi"] {
            try manager.createDirectory(atPath: "\(directory)/\(sub)", withIntermediateDirectories: true)
        }
        let port = try LoopbackPort.free()
        try configuration(directory: directory, port: port)
            .write(toFile: "\(directory)/nginx.conf", atomically: true, encoding: .utf8)
        let process = try Subprocess("/usr/sbin/nginx",
                                     ["-p", directory, "-c", "\(directory)/nginx.conf", "-g", "daemon off;"])
        let server = NginxServer(port: port, directory: directory, process: process)
        try server.waitUntilListening()
        return server
    }

    /// Stops nginx and removes its directory.
    public func stop() {
        if process.isRunning {
            process.signal(SIGTERM)
            _ = process.waitBlocking()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func waitUntilListening() throws {
        for _ in 0..<500 {
            if LoopbackPort.accepts(port) { return }
            guard process.isRunning else { break }
            usleep(10_000)
        }
        let log = (try? String(contentsOfFile: "\(directory)/error.log", encoding: .utf8)) ?? ""
        stop()
        throw NginxStartFailure(log: log)
    }

    private static func configuration(directory: String, port: Int) -> String {
        let expired = """
            <?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message>\
            <X-Amz-Expires>60</X-Amz-Expires><RequestId>R1</RequestId></Error>
            """
        // As root, nginx would drop its workers to `nobody`, who cannot write into this directory.
        let user = geteuid() == 0 ? "user root;" : ""
        return """
            \(user)
            worker_processes 2;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log \(directory)/access.log;
                client_body_temp_path \(directory)/tmp/body;
                proxy_temp_path \(directory)/tmp/proxy;
                fastcgi_temp_path \(directory)/tmp/fastcgi;
                uwsgi_temp_path \(directory)/tmp/uwsgi;
                scgi_temp_path \(directory)/tmp/scgi;
                default_type application/octet-stream;
                sendfile on;
                keepalive_requests 10000;
                large_client_header_buffers 4 64k;
                server {
                    listen 127.0.0.1:\(port);
                    root \(directory)/www;
                    location /dav/ {
                        dav_methods PUT DELETE;
                        create_full_put_path on;
                        client_max_body_size 0;
                        client_body_buffer_size 1m;
                    }
                    location /checked/ {
                        if ($http_x_attache_check != "yes") { return 412; }
                        if ($http_content_length = "") { return 411; }
                        if ($http_content_type != "image/jpeg") { return 415; }
                        dav_methods PUT;
                        create_full_put_path on;
                        client_max_body_size 0;
                    }
                    location /files/ { }
                    location /slow/ { alias \(directory)/www/files/; limit_rate 2m; }
                    location /paced/ {
                        alias \(directory)/www/files/;
                        limit_rate 64k;
                        add_header X-Connection $pid/$connection;
                    }
                    location /chunked/ {
                        alias \(directory)/www/files/;
                        sub_filter 'attache-never-matches' 'x';
                        sub_filter_once off;
                        sub_filter_types *;
                    }
                    location = /fault/503 { return 503; }
                    location = /fault/expired { default_type application/xml; return 403 '\(expired)'; }
                    location = /fault/signature {
                        return 403 '<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message></Error>';
                    }
                    location = /fault/invalid-argument {
                        return 400 '<Error><Code>InvalidArgument</Code><Message>Unsupported header</Message></Error>';
                    }
                    location = /fault/request-timeout {
                        return 400 '<Error><Code>RequestTimeout</Code><Message>Your socket connection was not read from</Message></Error>';
                    }
                    location = /fault/slow-down {
                        add_header Retry-After 3 always;
                        return 503 '<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>';
                    }
                    location = /fault/429 { add_header Retry-After 7 always; return 429; }
                    location = /fault/429-date {
                        add_header Retry-After "Sun, 01 Nov 2026 10:00:30 GMT" always;
                        return 429;
                    }
                    location = /fault/400 { return 400 '{"error":"bad"}'; }
                    location = /json { default_type application/json; return 200 '{"ok":true}'; }
                    location = /connection { return 200 '$pid/$connection'; }
                    location = /expect { return 200 'expect=$http_expect'; }
                    location /target/ { return 200 '$request_method $request_uri'; }
                    location = /request-line { return 200 '$request_method content-type=$http_content_type length=$http_content_length'; }
                    location = /presign/batch {
                        if ($request_method != POST) { return 405; }
                        if ($http_content_type != "application/json") { return 415; }
                        default_type application/json;
                        return 200 '\(PresignAnswers.batch)';
                    }
                    location = /presign/garbage { default_type application/json; return 200 'this is not json'; }
                    location = /presign/wrong-shape { default_type application/json; return 200 '{"files":{"f1":1}}'; }
                    location = /presign/down { return 502; }
                    location = /api/messages { default_type application/json; return 200 '{"data":{"id":"4711","muid":"m"}}'; }
                    location = /api/messages-numeric { default_type application/json; return 200 '{"data":{"id":4712}}'; }
                    location = /api/messages-plain { return 200 'accepted'; }
                    location = /api/refused {
                        default_type application/json;
                        return 404 '{"error":{"code":"ERR_UID_NOT_FOUND","message":"The UID uid-9 does not exist."}}';
                    }
                    location = /echo {
                        client_body_buffer_size 64k;
                        client_body_in_single_buffer on;
                        proxy_set_header X-Echo-Body $request_body;
                        proxy_pass http://127.0.0.1:\(port)/echo-reflect;
                    }
                    location = /echo-reflect {
                        default_type application/json;
                        return 200 '{"data":{"id":"echo-1","request":{"method":"$request_method","apikey":"$http_apikey","onBehalfOf":"$http_onbehalfof","contentType":"$http_content_type","body":$http_x_echo_body}}}';
                    }
                }
            }
            """
    }
}

/// Why nginx did not come up, with its error log.
public struct NginxStartFailure: Error, CustomStringConvertible {
    public var log: String
    public var description: String { "nginx did not start listening:\n\(log)" }
}

/// Runs a suite with one nginx shared by all its tests, stopped when the suite ends.
public struct NginxScope: SuiteTrait, TestScoping {
    public var isRecursive: Bool { false }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let server = try NginxServer.start()
        defer { server.stop() }
        try await NginxServer.$current.withValue(server) { try await function() }
    }
}

extension Trait where Self == NginxScope {
    /// One nginx for the whole suite.
    public static var nginx: Self { NginxScope() }
}
