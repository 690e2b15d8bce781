/// Canned presign endpoint answers that nginx serves.
public enum PresignAnswers {
    /// f1: ISO-8601 expiry with fractional seconds and headers; f2: epoch expiry, no method/headers;
    /// f3: refused with a code of the service; f4: refused without a code; f5: not asked for.
    public static let batch = """
        {"files":[\
        {"fileId":"f1","uploadUrl":"https://storage.invalid/b/f1?X-Amz-Signature=s1","method":"PUT",\
        "headers":{"x-amz-meta-batch":"trip-42","Content-Type":"image/jpeg"},"fileUrl":"https://cdn.invalid/f1.jpg",\
        "expiresAt":"2030-01-02T03:04:05.250Z"},\
        {"fileId":"f2","uploadUrl":"https://storage.invalid/b/f2?sig=2","fileUrl":"https://cdn.invalid/f2.pdf",\
        "expiresAt":1893456000},\
        {"fileId":"f3","error":{"code":"ERR_FILE_TYPE_NOT_ALLOWED","message":"executables are not allowed"}},\
        {"fileId":"f4","error":{"message":"quota exhausted"}},\
        {"fileId":"f5","uploadUrl":"https://storage.invalid/b/f5","fileUrl":"https://cdn.invalid/f5"}\
        ]}
        """
}
