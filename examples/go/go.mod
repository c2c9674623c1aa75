module github.com/hep-protocol/hep/examples/go

go 1.23

require github.com/hep-protocol/hep/bindings-go v0.0.0

replace github.com/hep-protocol/hep/bindings-go => ../../bindings-go
