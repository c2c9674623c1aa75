package hep

// #include "hep.h"
import "C"

import "unsafe"

// The result as the core's JSON text (`hep watch --json`), beside the binary layout Finish
// and Result decode: the tests hold the decoder to it (export_test.go; a test file cannot
// call C).

// finishJSON is Finish (known) or FinishUnknownExit giving the result's JSON text.
func (s *Stream) finishJSON(code int32, known bool) ([]byte, error) {
	if s.h == nil {
		return nil, &Error{Kind: KindInvalidArgument, Message: "the stream is closed"}
	}
	var out C.HepString
	var cerr *C.HepError
	if !C.hep_stream_finish(s.h, C.int32_t(code), C.bool(known), &out, &cerr) {
		return nil, takeError(cerr)
	}
	return takeJSON(out), nil
}

// resultJSON is Result giving the result's JSON text (nil before the run is over).
func (s *Supervisor) resultJSON() ([]byte, error) {
	var out C.HepString
	var cerr *C.HepError
	if !C.hep_supervisor_result(s.h, &out, &cerr) {
		return nil, takeError(cerr)
	}
	return takeJSON(out), nil
}

// takeJSON copies the library's text and frees it.
func takeJSON(s C.HepString) []byte {
	if s.ptr == nil {
		return nil
	}
	defer C.hep_string_free(s)
	return C.GoBytes(unsafe.Pointer(s.ptr), C.int(s.len))
}
