package hep

// #include "hep.h"
import "C"

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Encode returns f's canonical line, without its "\n": f as its wire JSON (its fields'
// json tags plus its "type"), read by the core's decoder as it reads a line and written by
// its encoder. The errors are the decoder's kinds (a negative or missing field, a wrong
// type; no line or column), KindUnencodable for an integer above 2^53 - 1 or a non-finite
// float, KindWrongType for a frame whose Type v1 does not know, and KindInvalidArgument for
// a nil frame. An *Unknown frame's line is its Raw, returned unchanged. Go's encoding/json
// writes a string that is not UTF-8 with U+FFFD in place of each bad byte.
func Encode(f Frame) (string, error) {
	if u, ok := f.(*Unknown); ok && u != nil {
		return u.Raw, nil
	}
	if f == nil {
		return "", &Error{Kind: KindInvalidArgument, Message: "hep.Encode: the frame is nil"}
	}
	body, err := json.Marshal(f)
	if err != nil {
		return "", &Error{Kind: KindUnencodable, Message: fmt.Sprintf("hep.Encode: %v", err)}
	}
	if len(body) < 2 || body[0] != '{' {
		return "", &Error{Kind: KindInvalidArgument, Message: fmt.Sprintf("hep.Encode: the frame is a nil %T", f)}
	}
	// The frame's own JSON object with "type" first: `{"type":"...",` and its fields.
	typed := make([]byte, 0, len(body)+len(f.Type())+12)
	typed = append(typed, `{"type":`...)
	typed = strconv.AppendQuote(typed, f.Type())
	if len(body) > 2 {
		typed = append(typed, ',')
	}
	typed = append(typed, body[1:]...)
	var line C.HepString
	var cerr *C.HepError
	if !C.hep_encode_json(text(string(typed)), &line, &cerr) {
		return "", takeError(cerr)
	}
	s, _ := takeString(line)
	return s, nil
}
