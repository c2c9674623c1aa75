package hep_test

import (
	"errors"
	"fmt"
	"strings"

	hep "github.com/hep-protocol/hep/bindings-go"
)

// expectKeys are the keys an `expect` may check.
var expectKeys = map[string]bool{
	"frames": true, "violations": true, "skipped": true, "halted": true, "verdict": true, "reasons": true,
	"conforms": true, "answer": true, "usage": true, "turns": true, "turns_dropped": true,
	"violation_count": true, "skipped_count": true, "untracked_calls": true,
}

// limitFields sets a Limits field by its name in hep-core.
var limitFields = map[string]func(*hep.Limits, uint64){
	"max_turns":                func(l *hep.Limits, v uint64) { l.MaxTurns = v },
	"max_text_bytes":           func(l *hep.Limits, v uint64) { l.MaxTextBytes = v },
	"max_tool_output_bytes":    func(l *hep.Limits, v uint64) { l.MaxToolOutputBytes = v },
	"max_tools_per_turn":       func(l *hep.Limits, v uint64) { l.MaxToolsPerTurn = v },
	"max_followups":            func(l *hep.Limits, v uint64) { l.MaxFollowups = v },
	"max_compactions_per_turn": func(l *hep.Limits, v uint64) { l.MaxCompactionsPerTurn = v },
	"max_tracked_calls":        func(l *hep.Limits, v uint64) { l.MaxTrackedCalls = v },
	"max_reports":              func(l *hep.Limits, v uint64) { l.MaxReports = v },
	"max_retained_bytes":       func(l *hep.Limits, v uint64) { l.MaxRetainedBytes = v },
}

// streamInput is `input_lines` (each followed by "\n"), or `input` / `input_base64`.
func streamInput(c object) ([]byte, error) {
	lines, ok := c["input_lines"].([]any)
	if !ok {
		return bytesOf(c, "input")
	}
	var b strings.Builder
	for _, line := range lines {
		s, err := textOf(line)
		if err != nil {
			return nil, err
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return []byte(b.String()), nil
}

// streamOptions are the case's `options` as the package's options.
func streamOptions(c object) ([]hep.Option, error) {
	given, _ := c["options"].(object)
	var opts []hep.Option
	for key, v := range given {
		switch key {
		case "strict":
			opts = append(opts, hep.WithStrict(v == true))
		case "max_line_length":
			n, ok := v.(float64)
			if !ok {
				return nil, fmt.Errorf("`options.max_line_length` is no number")
			}
			opts = append(opts, hep.WithMaxLineBytes(uint64(n)))
		case "limits":
			limits := hep.DefaultLimits()
			for name, value := range v.(object) {
				set, ok := limitFields[name]
				n, isNumber := value.(float64)
				if !ok || !isNumber || n < 0 {
					return nil, fmt.Errorf("unknown limit or no count: `%s` %v", name, value)
				}
				set(&limits, uint64(n))
			}
			opts = append(opts, hep.WithLimits(limits))
		default:
			return nil, fmt.Errorf("unknown option `%s`", key)
		}
	}
	return opts, nil
}

// outcome feeds chunks to a fresh stream, finishes it with exitCode (nil: unknown) and
// returns everything a case can check, as JSON data.
func outcome(chunks [][]byte, opts []hep.Option, exitCode *int) (object, error) {
	s, err := hep.NewStream(opts...)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var items []hep.Item
	var halts []*hep.Error
	for _, chunk := range chunks {
		got, err := s.FeedItems(chunk)
		items = append(items, got...)
		if err != nil {
			var he *hep.Error
			if !errors.As(err, &he) {
				return nil, fmt.Errorf("feeding failed with %T: %v", err, err)
			}
			halts = append(halts, he)
		}
	}
	result, err := finishBoth(s, exitCode)
	if err != nil {
		return nil, err
	}
	var halted any
	if h := result.Halted; h != nil {
		halted = object{"kind": h.Kind, "line": h.Line}
	}
	if len(halts) > 1 || (len(halts) == 1 && (result.Halted == nil || halts[0].Kind != result.Halted.Kind || halts[0].Line != result.Halted.Line)) {
		return nil, fmt.Errorf("feeding failed with %v, but the result's halt is %v", halts, halted)
	}
	frames := []any{}
	for _, it := range items {
		frames = append(frames, object{"line": it.Line, "type": it.Frame.Type(), "frame": canonical(it.Frame)})
	}
	violations := []any{}
	for _, v := range result.Violations {
		violations = append(violations, object{"code": v.Code, "severity": v.Severity, "line": v.Line, "turn_id": v.TurnID})
	}
	skipped := []any{}
	for _, e := range result.Skipped {
		skipped = append(skipped, object{"line": e.Line, "kind": e.Kind})
	}
	turns := []any{}
	for _, t := range result.Run.Turns {
		turns = append(turns, turnData(t))
	}
	return jsonData(object{
		"frames": frames, "violations": violations, "skipped": skipped, "halted": halted,
		"verdict": result.Verdict, "reasons": result.Reasons, "conforms": result.Conforms,
		"answer": result.Run.Answer, "usage": result.Run.Usage, "turns": turns,
		"violation_count": result.ViolationCount, "skipped_count": result.SkippedCount,
		"untracked_calls": result.UntrackedCalls, "turns_dropped": result.Run.TurnsDropped,
	}).(object), nil
}

// turnData is a turn as a case lists it: a tool's follow-ups by their actions.
func turnData(t hep.Turn) object {
	out := jsonData(t).(object)
	tools := []any{}
	for _, c := range t.Tools {
		tool := jsonData(c).(object)
		actions := []string{}
		for _, f := range c.Followups {
			actions = append(actions, f.Action)
		}
		tool["followups"] = actions
		delete(tool, "last_liveness")
		tools = append(tools, tool)
	}
	out["tools"] = tools
	return out
}

// pieces is data cut into chunks of size bytes.
func pieces(data []byte, size int) [][]byte {
	var out [][]byte
	for len(data) > size {
		out = append(out, data[:size])
		data = data[size:]
	}
	return append(out, data)
}

// observe reads a stream case, feeds it whole, byte by byte and in 7-byte chunks (which
// must agree) and returns the outcome.
func observe(c object) (object, error) {
	data, err := streamInput(c)
	if err != nil {
		return nil, err
	}
	opts, err := streamOptions(c)
	if err != nil {
		return nil, err
	}
	var exitCode *int
	if n, ok := c["exit_code"].(float64); ok {
		code := int(n)
		exitCode = &code
	}
	whole, err := outcome([][]byte{data}, opts, exitCode)
	if err != nil {
		return nil, err
	}
	for _, size := range []int{1, 7} {
		other, err := outcome(pieces(data, size), opts, exitCode)
		if err != nil {
			return nil, err
		}
		if err := sameJSON(fmt.Sprintf("fed in %d-byte chunks vs whole", size), whole, other); err != nil {
			return nil, err
		}
	}
	return whole, nil
}

// checkExpect checks every key of expect against the outcome got.
func checkExpect(expect object, got object) error {
	if len(expect) == 0 {
		return fmt.Errorf("`expect` checks nothing")
	}
	var failures []string
	for key, want := range expect {
		var err error
		wantList, isList := want.([]any)
		gotList, gotIsList := got[key].([]any)
		switch {
		case !expectKeys[key]:
			err = fmt.Errorf("unknown `expect` key `%s`", key)
		case key != "reasons" && isList && gotIsList:
			err = entries(key, wantList, gotList)
		default:
			err = sameJSON("`"+key+"`", want, got[key])
		}
		if err != nil {
			failures = append(failures, err.Error())
		}
	}
	if failures != nil {
		return fmt.Errorf("%s", strings.Join(failures, "\n"))
	}
	return nil
}

// entries: each listed entry matches the actual one key by key (tools likewise), and the
// lists are equally long.
func entries(path string, want, got []any) error {
	for i := range min(len(want), len(got)) {
		at := fmt.Sprintf("%s[%d]", path, i)
		w, ok := want[i].(object)
		g, gok := got[i].(object)
		if !ok || !gok {
			return fmt.Errorf("`%s` must be an object", at)
		}
		for key, wv := range w {
			gv, known := g[key]
			if !known {
				return fmt.Errorf("`%s.%s` is no key a runner knows", at, key)
			}
			wl, wIsList := wv.([]any)
			gl, gIsList := gv.([]any)
			var err error
			if key == "tools" && wIsList && gIsList {
				err = entries(at+".tools", wl, gl)
			} else {
				err = sameJSON("`"+at+"."+key+"`", wv, gv)
			}
			if err != nil {
				return err
			}
		}
	}
	if len(want) != len(got) {
		return fmt.Errorf("`%s` has %d entries instead of %d: %s", path, len(got), len(want), show(got))
	}
	return nil
}
