// The Go supervisor of `make bench-live` (bench/live/run.sh builds and runs it; see the
// "Live latency and many runs" section of bench/README.md), on bindings-go's Start.
//
//	hep-live-go latency --frames N -- CHILD [ARGS...]
//	hep-live-go many --runs R --expect F -- CMD [ARGS...]
//
// latency runs the child once and, for each timed frame (a message_delta or tool_delta
// whose text starts with the CLOCK_MONOTONIC time it was written, see rust/child.rs),
// records how long after its writing the Frames loop got it. many runs R copies of CMD
// at once, a goroutine each, reading every frame's type, and reports the wall time, the
// process's CPU time (getrusage), the frames delivered, the peak of its thread count
// (/proc/self/status, sampled every 5 ms) and how many runs ended with verdict ok and F
// frames. Each prints one JSON line for live.py.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	hep "github.com/hep-protocol/hep/bindings-go"
	"golang.org/x/sys/unix"
)

const usage = "usage: hep-live-go latency --frames N -- CHILD... | many --runs R --expect F -- CMD..."

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "hep-live-go:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	split := slices.Index(args, "--")
	if split < 0 || split == len(args)-1 {
		return fmt.Errorf("%s", usage)
	}
	head, command := strings.Join(args[:split], " "), args[split+1:]
	if m := regexp.MustCompile(`^latency --frames (\d+)$`).FindStringSubmatch(head); m != nil {
		frames, _ := strconv.Atoi(m[1])
		return latency(command, frames)
	}
	if m := regexp.MustCompile(`^many --runs (\d+) --expect (\d+)$`).FindStringSubmatch(head); m != nil {
		runs, _ := strconv.Atoi(m[1])
		expect, _ := strconv.Atoi(m[2])
		return many(command, runs, expect)
	}
	return fmt.Errorf("unknown arguments %q (%s)", head, usage)
}

// nowNs reads CLOCK_MONOTONIC in nanoseconds, the clock the child writes.
func nowNs() int64 {
	var t unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &t); err != nil {
		return 0
	}
	return t.Nano()
}

// sentNs is the time a timed frame was written, from the start of its text.
func sentNs(f hep.Frame) (int64, bool) {
	var text string
	switch f := f.(type) {
	case *hep.MessageDelta:
		text = f.Delta
	case *hep.ToolDelta:
		text = f.Update
	default:
		return 0, false
	}
	first, _, _ := strings.Cut(text, " ")
	sent, err := strconv.ParseInt(first, 10, 64)
	return sent, err == nil
}

func latency(command []string, frames int) error {
	run, err := hep.Start(context.Background(), command[0], command[1:]...)
	if err != nil {
		return err
	}
	latencies := make([]int64, 0, frames)
	for f, err := range run.Frames() {
		if err != nil {
			return err
		}
		now := nowNs()
		if sent, ok := sentNs(f); ok {
			latencies = append(latencies, now-sent)
		}
	}
	result, err := run.Wait()
	if err != nil {
		return err
	}
	return emit(map[string]any{"verdict": result.Verdict, "expected": frames, "bad": 0, "latencies_ns": latencies})
}

func many(command []string, runs, expect int) error {
	start := time.Now()
	before, err := cpuSeconds()
	if err != nil {
		return err
	}
	var frames, ok atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, runs)
	for range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run, err := hep.Start(context.Background(), command[0], command[1:]...)
			if err != nil {
				errs <- err
				return
			}
			seen := 0
			for f, err := range run.Frames() {
				if err != nil {
					errs <- err
					return
				}
				if f.Type() != "" { // what a supervisor does with a frame: look at it
					seen++
				}
			}
			result, err := run.Wait()
			if err != nil {
				errs <- err
				return
			}
			frames.Add(int64(seen))
			if result.Verdict == hep.VerdictOK && seen == expect {
				ok.Add(1)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	peak := threads()
	ticker := time.NewTicker(5 * time.Millisecond)
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-ticker.C:
			peak = max(peak, threads())
		}
	}
	ticker.Stop()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	wall := time.Since(start).Seconds()
	after, err := cpuSeconds()
	if err != nil {
		return err
	}
	return emit(map[string]any{
		"runs": runs, "ok": ok.Load(), "frames": frames.Load(), "wall_s": wall,
		"cpu_s": after - before, "peak_threads": max(peak, threads()),
	})
}

// cpuSeconds is the process's user and system time so far.
func cpuSeconds() (float64, error) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0, err
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds(), nil
}

var threadsLine = regexp.MustCompile(`(?m)^Threads:\s+(\d+)$`)

// threads is the process's thread count now (0 when /proc/self/status does not say).
func threads() int {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	m := threadsLine.FindSubmatch(status)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func emit(record map[string]any) error {
	line, err := json.Marshal(record)
	if err != nil {
		return err
	}
	_, err = fmt.Println(string(line))
	return err
}
