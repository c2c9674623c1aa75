package hep_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"testing"

	hep "github.com/hep-protocol/hep/bindings-go"
)

// encodedCompared counts the lines hep.Encode was compared with.
var encodedCompared atomic.Int64

// encodesTo fails unless hep.Encode(f) is exactly line.
func encodesTo(f hep.Frame, line string) error {
	encodedCompared.Add(1)
	got, err := hep.Encode(f)
	if err != nil {
		return fmt.Errorf("hep.Encode: %w", err)
	}
	if got != line {
		return fmt.Errorf("hep.Encode:\n want %s\n got  %s", line, got)
	}
	return nil
}

// mustHaveCompared fails the test unless it compared an encoded line since before.
func mustHaveCompared(t *testing.T, before int64, kind string) {
	t.Helper()
	if encodedCompared.Load() == before {
		t.Fatalf("no %s case compared hep.Encode with a line", kind)
	}
}

// frameOf is a vector's frame (JSON data with its `type`) as the Go frame of that type.
func frameOf(v any) (hep.Frame, error) {
	data, ok := v.(object)
	if !ok {
		return nil, fmt.Errorf("the frame %v is no object", v)
	}
	var f hep.Frame
	switch data["type"] {
	case "hep_header":
		f = &hep.HepHeader{}
	case "agent_start":
		f = &hep.AgentStart{}
	case "message_start":
		f = &hep.MessageStart{}
	case "message_delta":
		f = &hep.MessageDelta{}
	case "tool_start":
		f = &hep.ToolStart{}
	case "tool_delta":
		f = &hep.ToolDelta{}
	case "tool_liveness":
		f = &hep.ToolLiveness{}
	case "turn_done":
		f = &hep.TurnDone{}
	case "turn_error":
		f = &hep.TurnError{}
	case "cancelled":
		f = &hep.Cancelled{}
	case "compaction_start":
		f = &hep.CompactionStart{}
	case "compaction_end":
		f = &hep.CompactionEnd{}
	default:
		return nil, fmt.Errorf("the frame's type %v is none of v1", data["type"])
	}
	text, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(text, f); err != nil {
		return nil, fmt.Errorf("the frame as %T: %w", f, err)
	}
	return f, nil
}

// TestEncodeErrors: what hep.Encode refuses, by kind; an unknown frame is its raw line.
func TestEncodeErrors(t *testing.T) {
	raw := `{"type":"later","turn_id":1,"x":[1,2]}`
	if got, err := hep.Encode(&hep.Unknown{FrameType: "later", Raw: raw}); err != nil || got != raw {
		t.Fatalf("an unknown frame: %q, %v; want its raw line", got, err)
	}
	var nilStart *hep.AgentStart
	cases := []struct {
		name  string
		frame hep.Frame
		kind  hep.Kind
	}{
		{"an integer above 2^53 - 1", &hep.AgentStart{TurnID: 1 << 53}, hep.KindUnencodable},
		{"a non-finite cost", &hep.TurnDone{TurnID: 1, Usage: hep.Usage{Cost: math.Inf(1)}}, hep.KindUnencodable},
		{"a nil frame", nil, hep.KindInvalidArgument},
		{"a nil frame pointer", nilStart, hep.KindInvalidArgument},
	}
	for _, c := range cases {
		_, err := hep.Encode(c.frame)
		var e *hep.Error
		if !errors.As(err, &e) || e.Kind != c.kind {
			t.Errorf("%s: got %v, want kind %s", c.name, err, c.kind)
		}
	}
}
