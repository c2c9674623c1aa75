module github.com/hep-protocol/hep/bench/live/go

go 1.23

require (
	github.com/hep-protocol/hep/bindings-go v0.0.0
	golang.org/x/sys v0.22.0
)

replace github.com/hep-protocol/hep/bindings-go => ../../../bindings-go
