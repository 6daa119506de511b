// Pins nats-server (with JetStream) for the e2e suite. Why a module rather than
// `go install …@version`: the pin and its checksums (go.sum) live in the repo like the others,
// and the `tool` directive keeps `go mod tidy` from dropping a requirement no Go file imports.
module switchboard.local/e2e/tools/nats

go 1.26.0

tool github.com/nats-io/nats-server/v2

require (
	github.com/antithesishq/antithesis-sdk-go v0.7.2-default-no-op // indirect
	github.com/google/go-tpm v0.9.8 // indirect
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/minio/highwayhash v1.0.4 // indirect
	github.com/nats-io/jwt/v2 v2.8.2 // indirect
	github.com/nats-io/nats-server/v2 v2.12.15 // indirect
	github.com/nats-io/nkeys v0.4.16 // indirect
	github.com/nats-io/nuid v1.0.1 // indirect
	golang.org/x/crypto v0.55.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
