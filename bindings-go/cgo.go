package hep

/*
#cgo linux,amd64 LDFLAGS: ${SRCDIR}/lib/linux_amd64/libhep.a
#cgo linux,arm64 LDFLAGS: ${SRCDIR}/lib/linux_arm64/libhep.a
#cgo darwin,amd64 LDFLAGS: ${SRCDIR}/lib/darwin_amd64/libhep.a
#cgo darwin,arm64 LDFLAGS: ${SRCDIR}/lib/darwin_arm64/libhep.a
#cgo LDFLAGS: -lpthread -lm -ldl
#cgo linux LDFLAGS: -lutil -lrt
#include "hep.h"
*/
import "C"

import "unsafe"

// text lends s to one C call: cgo lets C read Go memory for the length of the call, and
// the library keeps nothing it is given.
func text(s string) C.HepText {
	return C.HepText{ptr: (*C.char)(unsafe.Pointer(unsafe.StringData(s))), len: C.size_t(len(s))}
}

// takeString copies a library string into Go and frees it; ok is false for a NULL string.
func takeString(s C.HepString) (string, bool) {
	if s.ptr == nil {
		return "", false
	}
	out := string(unsafe.Slice((*byte)(unsafe.Pointer(s.ptr)), int(s.len)))
	C.hep_string_free(s)
	return out, true
}

// copyString copies a library string the caller still owns.
func copyString(s C.HepString) string {
	if s.ptr == nil {
		return ""
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(s.ptr)), int(s.len)))
}

// takeError converts a library error into an *Error and frees it.
func takeError(e *C.HepError) *Error {
	if e == nil {
		return &Error{Kind: KindInternal, Message: "the library reported a failure without an error"}
	}
	out := &Error{
		Kind:    kindOf(int32(e.kind)),
		Line:    uint64(e.line),
		Column:  uint64(e.column),
		Message: copyString(e.message),
		Excerpt: copyString(e.excerpt),
	}
	C.hep_error_free(e)
	return out
}

// kindOf is the Kind of the ABI's error code.
func kindOf(code int32) Kind {
	return Kind(C.GoString(C.hep_error_kind_name(C.int32_t(code))))
}
