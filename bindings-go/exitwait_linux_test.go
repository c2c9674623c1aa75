//go:build linux

package hep_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	hep "github.com/hep-protocol/hep/bindings-go"
)

// threadCount is this process's number of OS threads (`Threads:` of /proc/self/status).
func threadCount(t *testing.T) int {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^Threads:\s+(\d+)$`).FindSubmatch(status)
	if m == nil {
		t.Fatalf("/proc/self/status has no Threads line:\n%s", status)
	}
	n, err := strconv.Atoi(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Runs whose children are still running hold no OS thread each: the exit is awaited on the
// child's pidfd in the netpoller, not in a blocking wait (which takes a thread per run).
// Every child is still reaped once it exits.
func TestRunsWaitingForTheirChildrenHoldNoThreadEach(t *testing.T) {
	const runs = 40
	before := threadCount(t)
	started := make([]*hep.Run, 0, runs)
	for range runs {
		run, err := shell("sleep 1").Start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		started = append(started, run)
	}
	time.Sleep(300 * time.Millisecond) // every run waiting for its child's exit by now
	during := threadCount(t)
	for _, run := range started {
		if _, err := run.Wait(); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(run.Pid(), 0); !errors.Is(err, syscall.ESRCH) {
			t.Fatalf("the child %d is still there (a zombie?): %v", run.Pid(), err)
		}
	}
	if during-before >= runs/2 {
		t.Fatalf("%d runs waiting for their children took %d more threads (%d before, %d during)", runs, during-before, before, during)
	}
}

// A child that exits before its run starts waiting (as `true` often does) is seen as
// exited all the same: the run ends. Each of 100 such runs must end within 30 s (a missed
// exit would wait forever).
func TestChildrenThatExitAtOnceEndTheirRuns(t *testing.T) {
	for i := range 100 {
		run, err := hep.Command("true").Start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ended := make(chan error, 1)
		go func() {
			_, err := run.Wait()
			ended <- err
		}()
		select {
		case err := <-ended:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("run %d: its child %d exited, but the run never ended", i, run.Pid())
		}
		if err := syscall.Kill(run.Pid(), 0); !errors.Is(err, syscall.ESRCH) {
			t.Fatalf("the child %d is still there (a zombie?): %v", run.Pid(), err)
		}
	}
}
