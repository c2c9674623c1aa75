module github.com/hep-protocol/hep/bindings-go

go 1.23
