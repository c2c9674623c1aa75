package hep_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	hep "github.com/hep-protocol/hep/bindings-go"
)

// The harness side: a run written line by line, byte for byte as the reference writes it.
func ExampleWriter() {
	// START writer
	w, err := hep.NewWriter(os.Stdout, "1.0.0")
	if err != nil {
		panic(err)
	}
	defer w.Close()
	w.Header("session-1")
	w.AgentStart()
	w.MessageDelta("Hello")
	usage := hep.Usage{Input: 12, Output: 3, Cost: 0.001}
	w.TurnDone("Hello", nil, usage, "stop")
	// END writer

	// Output:
	// {"type":"hep_header","hep":"v1","fah":"1.0.0","session":"session-1"}
	// {"type":"agent_start","turn_id":1}
	// {"type":"message_delta","turn_id":1,"delta":"Hello"}
	// {"type":"turn_done","turn_id":1,"message":"Hello","tool_results":[],"usage":{"input":12,"output":3,"cost":0.001},"stop_reason":"stop"}
}

// One frame to its exact line: the core's encoder, the fields in wire order.
func ExampleEncode() {
	// START encode
	line, err := hep.Encode(&hep.ToolDelta{TurnID: 2, ID: "c1", Update: "line 1\nline 2"})
	if err != nil {
		panic(err)
	}
	fmt.Println(line)
	// END encode

	// Output:
	// {"type":"tool_delta","turn_id":2,"id":"c1","update":"line 1\nline 2"}
}

const run = `{"type":"hep_header","hep":"v1","fah":"1.0.0","session":"s-1"}
{"type":"agent_start","turn_id":1}
{"type":"tool_start","turn_id":1,"id":"c1","name":"read","args_summary":"path=\"a.txt\""}
{"type":"message_delta","turn_id":1,"delta":"Done."}
{"type":"plan_update","turn_id":1}
{"type":"turn_done","turn_id":1,"message":"Done.","tool_results":[{"id":"c1","name":"read","ok":true,"text":"abc"}],"usage":{"input":5,"output":2,"cost":0.5},"stop_reason":"stop"}
`

// The supervisor side: chunks in, frames out, then the verdict for the exit code.
func ExampleStream() {
	// START stream
	s, err := hep.NewStream()
	if err != nil {
		panic(err)
	}
	defer s.Close()
	data := []byte(run)
	for _, chunk := range [][]byte{data[:100], data[100:]} { // any split works
		frames, err := s.Feed(chunk)
		if err != nil {
			panic(err) // a halt: strict mode, or a protocol version this library refuses
		}
		for _, f := range frames {
			switch f := f.(type) {
			case *hep.ToolStart:
				fmt.Printf("tool %s(%s)\n", f.Name, f.ArgsSummary)
			case *hep.MessageDelta:
				fmt.Printf("text %q\n", f.Delta)
			case *hep.Unknown:
				fmt.Printf("a newer frame type: %s\n", f.FrameType)
			}
		}
	}
	result, err := s.Finish(0)
	if err != nil {
		panic(err)
	}
	fmt.Println(result.Verdict, *result.Run.Answer, result.Run.Usage.Cost)
	// END stream

	// Output:
	// tool read(path="a.txt")
	// text "Done."
	// a newer frame type: plan_update
	// ok Done. 0.5
}

// A live stream read from any io.Reader (a pipe, a file) as an iterator.
func ExampleReader() {
	// START reader
	r := hep.NewReader(strings.NewReader(run))
	defer r.Close()
	for f, err := range r.Frames() {
		if err != nil {
			panic(err)
		}
		if id, ok := f.Turn(); ok {
			fmt.Println(f.Type(), id)
		}
	}
	result, err := r.Result(0)
	if err != nil {
		panic(err)
	}
	fmt.Println(result.Verdict, result.Conforms)
	// END reader

	// Output:
	// agent_start 1
	// tool_start 1
	// message_delta 1
	// plan_update 1
	// turn_done 1
	// ok true
}

// Errors carry a kind, a line and a column; errors.Is tests the kind.
func ExampleError() {
	// START errors
	s, err := hep.NewStream(hep.WithStrict(true))
	if err != nil {
		panic(err)
	}
	defer s.Close()
	_, err = s.Feed([]byte("{\"type\":\"agent_start\",\"turn_id\":\"one\"}\n"))
	var e *hep.Error
	if errors.As(err, &e) {
		fmt.Println(errors.Is(err, hep.ErrWrongType), e.Kind, e.Line, e.Column)
	}
	// END errors

	// Output:
	// true wrong_type 1 33
}

// Limits cap what a long run keeps in memory; DefaultLimits gives the core's.
func ExampleWithLimits() {
	// START limits
	limits := hep.DefaultLimits()
	limits.MaxTurns = 1
	s, err := hep.NewStream(hep.WithLimits(limits))
	if err != nil {
		panic(err)
	}
	defer s.Close()
	var two bytes.Buffer
	two.WriteString(`{"type":"hep_header","hep":"v1","fah":"1","session":"s"}` + "\n")
	two.WriteString(`{"type":"agent_start","turn_id":1}` + "\n")
	for id := 1; id <= 2; id++ {
		fmt.Fprintf(&two, `{"type":"turn_done","turn_id":%d,"message":"m%d","tool_results":[],"usage":{"input":1,"output":1,"cost":0.5},"stop_reason":"stop"}`+"\n", id, id)
	}
	if _, err := s.Feed(two.Bytes()); err != nil {
		panic(err)
	}
	result, err := s.Finish(0)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(result.Run.Turns), result.Run.TurnsDropped, result.Run.Usage.Input)
	// END limits

	// Output:
	// 1 1 2
}
