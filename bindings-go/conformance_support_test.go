package hep_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	hep "github.com/hep-protocol/hep/bindings-go"
)

// conformanceDir is the repository's vectors.
const conformanceDir = "../conformance"

// caseFiles is every case under conformance/<kind>, sorted; the test fails when there is none.
func caseFiles(t *testing.T, kind string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join(conformanceDir, kind), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no %s case under %s", kind, conformanceDir)
	}
	sort.Strings(files)
	return files
}

// object is a case, or part of one, as JSON data.
type object = map[string]any

func readCase(t *testing.T, path string) object {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c object
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// textOf reads the conformance notation for text: a string, {"repeat": S, "count": N}, or
// a list of texts, concatenated.
func textOf(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case []any:
		var b strings.Builder
		for _, item := range v {
			s, err := textOf(item)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
		return b.String(), nil
	case object:
		s, ok := v["repeat"].(string)
		n, okN := v["count"].(float64)
		if !ok || !okN {
			return "", fmt.Errorf("a text object needs `repeat` and `count`: %v", v)
		}
		return strings.Repeat(s, int(n)), nil
	}
	return "", fmt.Errorf("no text: %v", v)
}

// bytesOf reads `<key>` (a text, as UTF-8) or `<key>_base64`.
func bytesOf(c object, key string) ([]byte, error) {
	if v, ok := c[key]; ok {
		s, err := textOf(v)
		return []byte(s), err
	}
	if v, ok := c[key+"_base64"].(string); ok {
		return base64.StdEncoding.DecodeString(v)
	}
	return nil, fmt.Errorf("no `%s` or `%s_base64`", key, key)
}

// jsonData is v as JSON data (objects as maps, numbers as float64), for comparing by value.
func jsonData(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return out
}

// canonical is a frame's canonical form: its JSON object with `type`; an unknown frame's
// line, parsed.
func canonical(f hep.Frame) any {
	if u, ok := f.(*hep.Unknown); ok {
		var out any
		if err := json.Unmarshal([]byte(u.Raw), &out); err != nil {
			return fmt.Sprintf("<raw line is no JSON: %v>", err)
		}
		return out
	}
	form, ok := jsonData(f).(object)
	if !ok {
		return fmt.Sprintf("<%T is no object>", f)
	}
	form["type"] = f.Type()
	return form
}

// sameJSON fails unless want and got are equal as JSON data.
func sameJSON(what string, want, got any) error {
	want, got = jsonData(want), jsonData(got)
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("%s: want %s, got %s", what, show(want), show(got))
	}
	return nil
}

func show(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(b.String())
}
