package main

import (
	"bufio"
	"bytes"
	"fmt"
)

// wireFrame is what a Go user would write to read HEP lines without the library: one flat
// struct holding the fields of every frame type, switched on Type. Fields whose absence
// must be told from their zero value are pointers.
type wireFrame struct {
	Type        string           `json:"type"`
	Hep         string           `json:"hep"`
	Fah         string           `json:"fah"`
	Session     string           `json:"session"`
	TurnID      *uint64          `json:"turn_id"`
	Role        string           `json:"role"`
	Delta       *string          `json:"delta"`
	ID          string           `json:"id"`
	Name        string           `json:"name"`
	ArgsSummary *string          `json:"args_summary"`
	Update      string           `json:"update"`
	Action      string           `json:"action"`
	ElapsedMS   *uint64          `json:"elapsed_ms"`
	OutputBytes *uint64          `json:"output_bytes"`
	Detail      *string          `json:"detail"`
	Message     *string          `json:"message"`
	ToolResults []wireToolResult `json:"tool_results"`
	Usage       *wireUsage       `json:"usage"`
	StopReason  string           `json:"stop_reason"`
	Error       *string          `json:"error"`
	Fatal       *bool            `json:"fatal"`
	TokensFreed *uint64          `json:"tokens_freed"`
}

type wireToolResult struct {
	ID   string  `json:"id"`
	Name string  `json:"name"`
	OK   *bool   `json:"ok"`
	Text *string `json:"text"`
}

type wireUsage struct {
	Input  *uint64  `json:"input"`
	Output *uint64  `json:"output"`
	Cost   *float64 `json:"cost"`
}

// unmarshalFunc is encoding/json.Unmarshal or a drop-in replacement.
type unmarshalFunc func(data []byte, v any) error

// scanDecode reads each stream with bufio.Scanner, decodes each line with unmarshal into a
// fresh wireFrame, checks it (checkFrame), and reads every field into sink. It returns the
// frames read.
func scanDecode(c *corpus, unmarshal unmarshalFunc, sink *uint64) (int, error) {
	total := 0
	for i, data := range c.streams {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		line := 0
		for sc.Scan() {
			line++
			var f wireFrame
			if err := unmarshal(sc.Bytes(), &f); err != nil {
				return total, fmt.Errorf("stream %d line %d: %w", i, line, err)
			}
			if err := checkFrame(&f, line); err != nil {
				return total, fmt.Errorf("stream %d line %d: %w", i, line, err)
			}
			*sink += readWireFrame(&f)
			total++
		}
		if err := sc.Err(); err != nil {
			return total, fmt.Errorf("stream %d: %w", i, err)
		}
	}
	return total, nil
}

// checkFrame checks what a careful user checks: the header first with protocol v1, and
// each known frame type's required fields present, with their fixed values where the
// protocol fixes them. Unknown types are ignored.
func checkFrame(f *wireFrame, line int) error {
	if (line == 1) != (f.Type == "hep_header") {
		return fmt.Errorf("hep_header must be the first line and only there (got %q)", f.Type)
	}
	missing := func(field string) error { return fmt.Errorf("%s: %s is missing", f.Type, field) }
	switch f.Type {
	case "hep_header":
		if f.Hep != "v1" {
			return fmt.Errorf("hep_header: protocol %q is not v1", f.Hep)
		}
		if f.Session == "" {
			return missing("session")
		}
		return nil
	case "agent_start", "message_start", "message_delta", "tool_start", "tool_delta", "tool_liveness",
		"turn_done", "turn_error", "cancelled", "compaction_start", "compaction_end":
		if f.TurnID == nil {
			return missing("turn_id")
		}
	default:
		return nil
	}
	switch f.Type {
	case "message_start":
		if f.Role != "assistant" {
			return fmt.Errorf("message_start: role %q is not assistant", f.Role)
		}
	case "message_delta":
		if f.Delta == nil {
			return missing("delta")
		}
	case "tool_start":
		if f.ID == "" || f.Name == "" || f.ArgsSummary == nil {
			return missing("id, name or args_summary")
		}
	case "tool_delta":
		if f.ID == "" || f.Update == "" {
			return missing("id or update")
		}
	case "tool_liveness":
		if f.ID == "" || f.Name == "" || f.ElapsedMS == nil {
			return missing("id, name or elapsed_ms")
		}
		switch f.Action {
		case "heartbeat", "cancel_retry", "background_convert", "escalate", "advisory":
		default:
			return fmt.Errorf("tool_liveness: action %q is not known", f.Action)
		}
	case "turn_done":
		if f.Message == nil || f.ToolResults == nil || f.Usage == nil || f.StopReason == "" {
			return missing("message, tool_results, usage or stop_reason")
		}
		if f.Usage.Input == nil || f.Usage.Output == nil || f.Usage.Cost == nil {
			return missing("usage.input, usage.output or usage.cost")
		}
		for _, t := range f.ToolResults {
			if t.ID == "" || t.Name == "" || t.OK == nil || t.Text == nil {
				return missing("a tool result's id, name, ok or text")
			}
		}
	case "turn_error":
		if f.Error == nil || f.Fatal == nil {
			return missing("error or fatal")
		}
	case "compaction_end":
		if f.TokensFreed == nil {
			return missing("tokens_freed")
		}
	}
	return nil
}

// readWireFrame reads every field of a checked frame, as readHepFrame does for hep's.
func readWireFrame(f *wireFrame) uint64 {
	var turn uint64
	if f.TurnID != nil {
		turn = *f.TurnID
	}
	switch f.Type {
	case "message_delta":
		return turn + uint64(len(*f.Delta))
	case "tool_delta":
		return turn + uint64(len(f.ID)+len(f.Update))
	case "tool_liveness":
		n := turn + uint64(len(f.ID)+len(f.Name)+len(f.Action)) + *f.ElapsedMS
		if f.OutputBytes != nil {
			n += *f.OutputBytes
		}
		if f.Detail != nil {
			n += uint64(len(*f.Detail))
		}
		return n
	case "tool_start":
		return turn + uint64(len(f.ID)+len(f.Name)+len(*f.ArgsSummary))
	case "message_start":
		return turn + uint64(len(f.Role))
	case "turn_done":
		n := turn + uint64(len(*f.Message)+len(f.StopReason)) + *f.Usage.Input + *f.Usage.Output + uint64(*f.Usage.Cost*1e6)
		for _, t := range f.ToolResults {
			n += uint64(len(t.ID) + len(t.Name) + len(*t.Text))
			if *t.OK {
				n++
			}
		}
		return n
	case "turn_error":
		n := turn + uint64(len(*f.Error))
		if *f.Fatal {
			n++
		}
		return n
	case "hep_header":
		return uint64(len(f.Hep) + len(f.Fah) + len(f.Session))
	case "compaction_end":
		return turn + *f.TokensFreed
	}
	return turn
}
