// Command mirror reads a HEP v1 stream from its standard input (a harness's stdout, piped),
// mirrors its progress line by line and prints the run's summary and verdict:
//
//	hep simulate --speed 0 | go run ./examples/go
//
// Its exit status is 0 for an ok run, 1 otherwise.
package main

import (
	"fmt"
	"os"

	hep "github.com/hep-protocol/hep/bindings-go"
)

func main() {
	verdict, err := mirror()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mirror:", err)
		os.Exit(2)
	}
	if verdict != hep.VerdictOK {
		os.Exit(1)
	}
}

func mirror() (hep.Verdict, error) {
	// START mirror
	r := hep.NewReader(os.Stdin)
	defer r.Close()
	for f, err := range r.Frames() {
		if err != nil {
			return "", err
		}
		switch f := f.(type) {
		case *hep.HepHeader:
			fmt.Printf("session %s (harness %s)\n", f.Session, f.Fah)
		case *hep.ToolStart:
			fmt.Printf("  turn %d: %s(%s)\n", f.TurnID, f.Name, f.ArgsSummary)
		case *hep.TurnDone:
			fmt.Printf("  turn %d done: %d tool results, %s\n", f.TurnID, len(f.ToolResults), f.StopReason)
		case *hep.TurnError:
			fmt.Printf("  turn %d failed: %s\n", f.TurnID, f.Error)
		case *hep.Unknown:
			fmt.Printf("  (a newer frame type: %s)\n", f.FrameType)
		}
	}
	result, err := r.ResultUnknownExit() // a pipe hides the harness's exit code
	if err != nil {
		return "", err
	}
	usage := result.Run.Usage
	fmt.Printf("%d turns, %d+%d tokens, $%.4f\n", len(result.Run.Turns), usage.Input, usage.Output, usage.Cost)
	if result.Run.Answer != nil {
		fmt.Printf("answer: %s\n", *result.Run.Answer)
	}
	fmt.Printf("verdict: %s\n", result.Verdict)
	for _, reason := range result.Reasons {
		fmt.Printf("  %s\n", reason)
	}
	// END mirror
	return result.Verdict, nil
}
