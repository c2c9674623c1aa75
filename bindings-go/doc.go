// Package hep reads, validates and writes HEP v1 (Harness Event Protocol) streams with
// hep-core, the same Rust implementation as the hep command and the Python, Node and Swift
// packages, through its C ABI (libhep, bindings-c).
//
// A Stream takes the bytes a harness writes, in chunks of any size, and returns the frames
// each chunk completes; Finish judges the run. A Reader does the same over an io.Reader,
// as an iterator. Command and Start run a harness under the core's supervision policy
// (the cancel ladder, timeouts, the drain, the verdict) with a Go driver; Supervisor is
// that policy's state machine. A Writer writes the protocol's lines byte for byte as the
// reference harness does.
//
// Frames are pointers to one struct per frame type (*MessageDelta, *ToolStart, ...) behind
// the Frame interface; a frame type this version does not know is an *Unknown, never an
// error. Errors are *Error values; errors.Is(err, ErrSyntax) tests their kind.
//
// The package links the static library libhep.a: see docs/go.md for how to get it.
package hep
