// Command supervise runs a HEP v1 harness under hep's supervision, mirrors its progress
// line by line and prints the run's summary and verdict:
//
//	go run ./examples/go target/debug/hep simulate --speed 0
//
// Ctrl-C cancels the run with the core's ladder (SIGINT to the harness's process group,
// then SIGTERM and SIGKILL after the graces). Its exit status is 0 for an ok run, 1
// otherwise, 2 when the harness cannot be run.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	hep "github.com/hep-protocol/hep/bindings-go"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: supervise COMMAND [ARG...]")
		os.Exit(2)
	}
	verdict, err := supervise(os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "supervise:", err)
		os.Exit(2)
	}
	if verdict != hep.VerdictOK {
		os.Exit(1)
	}
}

func supervise(name string, args []string) (hep.Verdict, error) {
	// START supervise
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cmd := hep.Command(name, args...)
	cmd.OnStderr = func(line string) { fmt.Fprintln(os.Stderr, "  stderr:", line) }
	run, err := cmd.Start(ctx) // cancelling ctx runs the cancel ladder
	if err != nil {
		return "", err
	}
	for f, err := range run.Frames() {
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
	result, err := run.Wait()
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
	// END supervise
	return result.Verdict, nil
}
