import Testing
@testable import DevServices

@Suite struct CryptoTests {
    @Test func signatureIsHmacSha256OfMethodPathAndExpires() {
        // printf 'PUT\n/a\n10' | openssl dgst -sha256 -hmac Jefe
        let signer = URLSigner(key: Array("Jefe".utf8))
        #expect(signer.signature(method: "PUT", path: "/a", expires: 10)
            == "02c9008422b6ea564d6db8219801906943b749551f38f0adffedb55bcc43f9b1")
    }

    @Test func signatureVerifiesOnlyForTheSignedRequest() {
        let signer = URLSigner(key: Array("Jefe".utf8))
        let signature = signer.signature(method: "PUT", path: "/a", expires: 10)
        #expect(signer.isValid(signature, method: "put", path: "/a", expires: 10))
        #expect(signer.isValid(signature.uppercased(), method: "PUT", path: "/a", expires: 10))
        #expect(!signer.isValid(signature, method: "PUT", path: "/a", expires: 11))
        #expect(!signer.isValid(signature, method: "PUT", path: "/b", expires: 10))
        #expect(!signer.isValid(signature, method: "GET", path: "/a", expires: 10))
        #expect(!signer.isValid(String(signature.dropLast()), method: "PUT", path: "/a", expires: 10))
        #expect(!URLSigner(key: Array("Jeff".utf8)).isValid(signature, method: "PUT", path: "/a", expires: 10))
    }
}
