package hep_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

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
	nonZero.Lock()
	note("", reflect.ValueOf(result).Elem())
	nonZero.Unlock()
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

// nonZero records the field paths of Result (`Run.Turns[].Tools[].Output`) seen with a value
// other than the zero value in a result compared by sameAsJSON.
var nonZero = struct {
	sync.Mutex
	paths map[string]bool
}{paths: map[string]bool{}}

// note records the non-zero fields of v under path.
func note(path string, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			nonZero.paths[path] = true
			note(path, v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			note(path+"."+v.Type().Field(i).Name, v.Field(i))
		}
	case reflect.Slice:
		if v.Len() > 0 {
			nonZero.paths[path] = true
		}
		for i := range v.Len() {
			note(path+"[]", v.Index(i))
		}
	default:
		if !v.IsZero() {
			nonZero.paths[path] = true
		}
	}
}

// fieldPaths lists the paths note records for a value of type t.
func fieldPaths(path string, t reflect.Type, out []string) []string {
	switch t.Kind() {
	case reflect.Pointer:
		return fieldPaths(path, t.Elem(), append(out, path))
	case reflect.Struct:
		for i := range t.NumField() {
			out = fieldPaths(path+"."+t.Field(i).Name, t.Field(i).Type, out)
		}
		return out
	case reflect.Slice:
		return fieldPaths(path+"[]", t.Elem(), append(out, path))
	}
	return append(out, path)
}

// A field of the result that no comparison ever saw set would pass sameAsJSON whatever the
// decoder did with it: the conformance streams, the supervision timelines and the
// simulator's scenarios together must set every one.
func TestEveryResultFieldIsComparedSet(t *testing.T) {
	runCases(t, "stream", func(c object) error {
		_, err := observe(c)
		return err
	})
	runCases(t, "supervise", runSupervise)
	TestEverySimulatedRunReadsTheSameInAnyChunks(t)
	nonZero.Lock()
	defer nonZero.Unlock()
	var never []string
	paths := fieldPaths("", reflect.TypeFor[hep.Result](), nil)
	slices.Sort(paths)
	paths = slices.Compact(paths)
	for _, path := range paths {
		if !nonZero.paths[path] {
			never = append(never, path)
		}
	}
	if len(never) > 0 {
		t.Fatalf("never compared with a value set: %s", strings.Join(never, ", "))
	}
	t.Logf("every one of the result's %d fields was compared set", len(paths))
}
