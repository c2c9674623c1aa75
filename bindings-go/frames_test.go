package hep_test

import (
	"bytes"
	"testing"

	hep "github.com/hep-protocol/hep/bindings-go"
)

// everyFrameType is a run that writes each known frame type once.
func everyFrameType(t *testing.T) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := hep.NewWriter(&out, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	seven := uint64(7)
	detail := "attempt 1"
	calls := []func() (string, error){
		func() (string, error) { return w.Header("s-1") },
		w.AgentStart,
		func() (string, error) { return w.MessageStart("assistant") },
		func() (string, error) { return w.MessageDelta("hé 😀") },
		func() (string, error) { return w.ToolStart("c1", "bash", `{"command":"ls","n":1.50}`) },
		func() (string, error) { return w.ToolDelta("c1", "out") },
		func() (string, error) { return w.ToolLiveness("c1", "bash", "heartbeat", 2000, &seven, &detail) },
		func() (string, error) {
			return w.TurnDone("done", []hep.ToolResult{{ID: "c1", Name: "bash", OK: true, Text: "out"}}, hep.Usage{Input: 3, Output: 4, Cost: 0.25}, "toolUse")
		},
		w.CompactionStart,
		func() (string, error) { return w.CompactionEnd(1200) },
		func() (string, error) { return w.TurnError("provider down", false) },
		w.TurnStart,
		w.Cancelled,
	}
	for i, call := range calls {
		if _, err := call(); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	return out.Bytes()
}

func TestFramesAreStructsBehindTheFrameInterface(t *testing.T) {
	s, err := hep.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	frames, err := s.Feed(everyFrameType(t))
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, f := range frames {
		types = append(types, f.Type())
		switch f := f.(type) {
		case *hep.HepHeader:
			if f.Hep != "v1" || f.Fah != "1.2.3" || f.Session != "s-1" {
				t.Errorf("header %+v", f)
			}
			if _, ok := f.Turn(); ok {
				t.Error("a header has no turn")
			}
		case *hep.MessageDelta:
			if f.Delta != "hé 😀" || f.TurnID != 1 {
				t.Errorf("delta %+v", f)
			}
		case *hep.ToolStart:
			if f.ArgsSummary != `command="ls", n=1.5` {
				t.Errorf("args_summary %q", f.ArgsSummary)
			}
		case *hep.ToolLiveness:
			if f.OutputBytes == nil || *f.OutputBytes != 7 || f.Detail == nil || *f.Detail != "attempt 1" || f.ElapsedMS != 2000 {
				t.Errorf("liveness %+v", f)
			}
		case *hep.TurnDone:
			if len(f.ToolResults) != 1 || !f.ToolResults[0].OK || f.Usage.Cost != 0.25 || f.StopReason != "toolUse" {
				t.Errorf("turn_done %+v", f)
			}
		case *hep.CompactionEnd:
			if id, ok := f.Turn(); !ok || id != 2 || f.TokensFreed != 1200 {
				t.Errorf("compaction_end %+v", f)
			}
		}
	}
	want := []string{"hep_header", "agent_start", "message_start", "message_delta", "tool_start", "tool_delta",
		"tool_liveness", "turn_done", "compaction_start", "compaction_end", "turn_error", "cancelled"}
	if err := sameJSON("the frame types", want, types); err != nil {
		t.Fatal(err)
	}
}

func TestAnUnknownFrameKeepsItsTypeTurnAndLine(t *testing.T) {
	s, err := hep.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	line := `{"type":"plan_update","turn_id":3,"steps":["a"]}`
	frames, err := s.Feed([]byte(line + "\n"))
	if err != nil || len(frames) != 1 {
		t.Fatalf("frames %v, err %v", frames, err)
	}
	u, ok := frames[0].(*hep.Unknown)
	if !ok {
		t.Fatalf("%T, want *hep.Unknown", frames[0])
	}
	if id, has := u.Turn(); u.Type() != "plan_update" || u.FrameType != "plan_update" || !has || id != 3 || u.Raw != line {
		t.Fatalf("%+v", u)
	}
	frames, _ = s.Feed([]byte(`{"type":"plan_update","turn_id":"x"}` + "\n"))
	if _, has := frames[0].Turn(); has {
		t.Fatal("an invalid turn_id is no turn")
	}
}
