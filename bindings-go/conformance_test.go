package hep_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	hep "github.com/hep-protocol/hep/bindings-go"
)

// runCases runs check on every case of kind, each as a subtest.
func runCases(t *testing.T, kind string, check func(c object) error) {
	files := caseFiles(t, kind)
	for _, path := range files {
		name, _ := filepath.Rel(filepath.Join(conformanceDir, kind), path)
		t.Run(name, func(t *testing.T) {
			if err := check(readCase(t, path)); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Logf("%d %s cases", len(files), kind)
}

// decoded is what a line gives fed as a one-line stream: a frame, or the error it was
// skipped for.
type decoded struct {
	frame hep.Frame
	err   *hep.Error
}

func decodeLine(line []byte) (decoded, error) {
	s, err := hep.NewStream()
	if err != nil {
		return decoded{}, err
	}
	defer s.Close()
	frames, feedErr := s.Feed(append(line, '\n'))
	var halt *hep.Error
	if feedErr != nil && !errors.As(feedErr, &halt) {
		return decoded{}, feedErr
	}
	exit := 0
	result, err := finishBoth(s, &exit)
	if err != nil {
		return decoded{}, err
	}
	switch {
	case len(frames) == 1 && len(result.Skipped) == 0:
		return decoded{frame: frames[0]}, nil
	case len(frames) == 0 && len(result.Skipped) == 1:
		return decoded{err: result.Skipped[0]}, nil
	}
	return decoded{}, fmt.Errorf("the line gave %d frames and %d skipped lines", len(frames), len(result.Skipped))
}

// lineMatches checks a decoded line against an outcome: {"frame"} (accepted), or
// {"error": {"kind", "column"?}} (rejected).
func lineMatches(want object, got decoded) error {
	if e, ok := want["error"].(object); ok {
		if got.err == nil {
			return fmt.Errorf("accepted as %s, want rejected (%v)", show(canonical(got.frame)), e)
		}
		if string(got.err.Kind) != e["kind"] {
			return fmt.Errorf("rejected as %s (%v), want %v", got.err.Kind, got.err, e["kind"])
		}
		if column, ok := e["column"].(float64); ok && uint64(column) != got.err.Column {
			return fmt.Errorf("rejected at column %d, want %v (%v)", got.err.Column, column, got.err)
		}
		if !errors.Is(got.err, sentinel(got.err.Kind)) {
			return fmt.Errorf("errors.Is(%v, its kind's sentinel) is false", got.err)
		}
		return nil
	}
	if got.err != nil {
		return fmt.Errorf("rejected: %v", got.err)
	}
	if frame, ok := want["frame"]; ok {
		if err := sameJSON("the frame", frame, canonical(got.frame)); err != nil {
			return err
		}
	}
	if encoded, ok := want["encoded"].(string); ok {
		return encodesTo(got.frame, encoded)
	}
	return nil
}

// accepted is an accepting outcome's `frame` and `encoded`, those it has.
func accepted(c object) object {
	want := object{}
	for _, key := range []string{"frame", "encoded"} {
		if v, ok := c[key]; ok {
			want[key] = v
		}
	}
	return want
}

func TestConformanceEncode(t *testing.T) {
	before := encodedCompared.Load()
	runCases(t, "encode", func(c object) error {
		line, _ := c["line"].(string)
		frame, err := frameOf(c["frame"])
		if err != nil {
			return err
		}
		if err := encodesTo(frame, line); err != nil {
			return err
		}
		got, err := decodeLine([]byte(line))
		if err != nil {
			return err
		}
		return lineMatches(object{"frame": c["frame"]}, got)
	})
	mustHaveCompared(t, before, "encode")
}

func TestConformanceDecode(t *testing.T) {
	before := encodedCompared.Load()
	runCases(t, "decode", func(c object) error {
		line, err := bytesOf(c, "line")
		if err != nil {
			return err
		}
		got, err := decodeLine(line)
		if err != nil {
			return err
		}
		return lineMatches(accepted(c), got)
	})
	mustHaveCompared(t, before, "decode")
}

func TestConformanceReject(t *testing.T) {
	runCases(t, "reject", func(c object) error {
		line, err := bytesOf(c, "line")
		if err != nil {
			return err
		}
		got, err := decodeLine(line)
		if err != nil {
			return err
		}
		return lineMatches(object{"error": c["error"]}, got)
	})
}

func TestConformanceStream(t *testing.T) {
	runCases(t, "stream", func(c object) error {
		got, err := observe(c)
		if err != nil {
			return err
		}
		expect, ok := c["expect"].(object)
		if !ok {
			return fmt.Errorf("no `expect`")
		}
		return checkExpect(expect, got)
	})
}

func TestConformanceHostile(t *testing.T) {
	before := encodedCompared.Load()
	runCases(t, "hostile", func(c object) error {
		outcome, _ := c["outcome"].(string)
		switch c["form"] {
		case "line":
			line, err := bytesOf(c, "line")
			if err != nil {
				return err
			}
			got, err := decodeLine(line)
			if err != nil {
				return err
			}
			switch outcome {
			case "accept":
				return lineMatches(accepted(c), got)
			case "reject":
				return lineMatches(object{"error": c["error"]}, got)
			}
			return chosen(c, func(alt object) error {
				if alt["outcome"] == "accept" {
					return lineMatches(accepted(alt), got)
				}
				return lineMatches(object{"error": alt["error"]}, got)
			})
		case "stream":
			got, err := observe(c)
			if err != nil {
				return err
			}
			if outcome == "implementation_defined" {
				return chosen(c, func(alt object) error { return checkExpect(alt, got) })
			}
			if err := checkExpect(c["expect"].(object), got); err != nil {
				return err
			}
			if got["conforms"] != (outcome == "accept") {
				return fmt.Errorf("an `%s` stream case with conforms %v", outcome, got["conforms"])
			}
			return nil
		}
		return fmt.Errorf("unknown form %v", c["form"])
	})
	mustHaveCompared(t, before, "hostile")
}

// chosen checks that the outcome is `allowed[chosen]`, the one hep-core takes.
func chosen(c object, check func(alt object) error) error {
	allowed, _ := c["allowed"].([]any)
	index, ok := c["chosen"].(float64)
	if !ok || int(index) >= len(allowed) {
		return fmt.Errorf("`chosen` %v is no index of `allowed`", c["chosen"])
	}
	alt, ok := allowed[int(index)].(object)
	if !ok {
		return fmt.Errorf("`allowed[%v]` is no object", index)
	}
	return check(alt)
}

func TestConformanceWriter(t *testing.T) {
	runCases(t, "writer", func(c object) error {
		var out bytes.Buffer
		var opts []hep.WriterOption
		if c["args_mode"] == "full" {
			opts = append(opts, hep.WithFullArgs())
		}
		w, err := hep.NewWriter(&out, c["fah"].(string), opts...)
		if err != nil {
			return err
		}
		defer w.Close()
		var returned []string
		for i, call := range c["calls"].([]any) {
			line, err := writerCall(w, call.(object))
			if err != nil {
				return fmt.Errorf("call %d (%v): %w", i, call, err)
			}
			if line != "" {
				returned = append(returned, line)
			}
		}
		want := []string{}
		for _, line := range c["lines"].([]any) {
			want = append(want, line.(string))
		}
		written := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if out.Len() == 0 {
			written = []string{}
		}
		if err := sameJSON("the lines written", want, written); err != nil {
			return err
		}
		if err := sameJSON("the lines returned", want, append([]string{}, returned...)); err != nil {
			return err
		}
		if id, ok := c["turn_id"].(float64); ok && uint64(id) != w.TurnID() {
			return fmt.Errorf("turn id %d, want %v", w.TurnID(), id)
		}
		return nil
	})
}

// writerCall makes one call of a writer script.
func writerCall(w *hep.Writer, call object) (string, error) {
	str := func(key string) string {
		s, err := textOf(call[key])
		if err != nil {
			return ""
		}
		return s
	}
	num := func(key string) uint64 { n, _ := call[key].(float64); return uint64(n) }
	switch call["call"] {
	case "header":
		return w.Header(str("session"))
	case "agent_start":
		return w.AgentStart()
	case "turn_start":
		return w.TurnStart()
	case "message_start":
		return w.MessageStart(str("role"))
	case "message_delta":
		return w.MessageDelta(str("delta"))
	case "tool_start":
		return w.ToolStart(str("id"), str("name"), str("args"))
	case "tool_delta":
		return w.ToolDelta(str("id"), str("update"))
	case "liveness":
		var outputBytes *uint64
		if _, ok := call["output_bytes"]; ok {
			n := num("output_bytes")
			outputBytes = &n
		}
		var detail *string
		if _, ok := call["detail"]; ok {
			d := str("detail")
			detail = &d
		}
		return w.ToolLiveness(str("id"), str("name"), str("action"), num("elapsed_ms"), outputBytes, detail)
	case "turn_done":
		var results []hep.ToolResult
		for _, r := range call["tool_results"].([]any) {
			r := r.(object)
			text, err := textOf(r["text"])
			if err != nil {
				return "", err
			}
			results = append(results, hep.ToolResult{ID: r["id"].(string), Name: r["name"].(string), OK: r["ok"] == true, Text: text})
		}
		u := call["usage"].(object)
		usage := hep.Usage{Input: uint64(u["input"].(float64)), Output: uint64(u["output"].(float64)), Cost: u["cost"].(float64)}
		return w.TurnDone(str("message"), results, usage, str("stop_reason"))
	case "turn_error":
		return w.TurnError(str("error"), call["fatal"] == true)
	case "cancelled":
		return w.Cancelled()
	case "compaction_start":
		return w.CompactionStart()
	case "compaction_end":
		return w.CompactionEnd(num("tokens_freed"))
	}
	return "", fmt.Errorf("unknown call %v", call["call"])
}

// sentinel is the package's sentinel error of kind.
func sentinel(kind hep.Kind) error {
	for _, e := range []*hep.Error{
		hep.ErrSyntax, hep.ErrInvalidUTF8, hep.ErrTrailingCharacters, hep.ErrNotAnObject, hep.ErrMissingField,
		hep.ErrDuplicateField, hep.ErrWrongType, hep.ErrOutOfRange, hep.ErrTooDeep, hep.ErrLineTooLong,
		hep.ErrTruncated, hep.ErrUnsupportedVersion, hep.ErrViolation, hep.ErrUnencodable, hep.ErrIO,
		hep.ErrInvalidArgument, hep.ErrInternal,
	} {
		if e.Kind == kind {
			return e
		}
	}
	return fmt.Errorf("no sentinel for kind %q", kind)
}

func TestConformanceSupervise(t *testing.T) {
	runCases(t, "supervise", runSupervise)
}
