// The pod sandbox's "pause" process for the real-node tier (see main.go). No dependencies.
module switchboard.local/e2e/tools/pause

go 1.26.0
