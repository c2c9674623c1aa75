package hep_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	hep "github.com/hep-protocol/hep/bindings-go"
)

// sameAsJSON checks that result, decoded from the library's binary layout, deeply equals the
// core's JSON text of the same result decoded by encoding/json: the hand-written decoder
// cannot drift from the core's RunResult (a field added, moved or mistyped fails here).
func sameAsJSON(result *hep.Result, text []byte) error {
	var want hep.Result
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields() // a field the core added is a field the decoder lacks
	if err := dec.Decode(&want); err != nil {
		return fmt.Errorf("the JSON result does not decode: %v", err)
	}
	if !reflect.DeepEqual(result, &want) {
		got, _ := json.Marshal(result)
		return fmt.Errorf("the binary result differs from the JSON result:\n binary: %.2000s\n json:   %.2000s", got, text)
	}
	return nil
}

// finishBoth finishes s as Finish (exitCode not nil) or FinishUnknownExit does, and checks
// the result against the core's JSON text of it.
func finishBoth(s *hep.Stream, exitCode *int) (*hep.Result, error) {
	var result *hep.Result
	var err error
	code, known := int32(0), exitCode != nil
	if known {
		code = int32(*exitCode)
		result, err = s.Finish(*exitCode)
	} else {
		result, err = s.FinishUnknownExit()
	}
	if err != nil {
		return nil, err
	}
	text, err := hep.FinishJSON(s, code, known)
	if err != nil {
		return nil, err
	}
	return result, sameAsJSON(result, text)
}
