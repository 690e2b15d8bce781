import Worker

print("attache \(AttacheVersion.string)")
