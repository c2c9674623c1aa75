//go:build unix

package hep

import (
	"context"
	"iter"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Cmd is a harness to supervise, described as exec.Cmd describes a command. Make one with
// Command, change its fields, then Start it.
type Cmd struct {
	// The program, as exec.Command resolves it.
	Path string
	// The arguments, the program's name first.
	Args []string
	// The working directory ("" for the caller's).
	Dir string
	// The environment (nil for the caller's).
	Env []string
	// The supervision policy (from DefaultSuperviseOptions).
	Options SuperviseOptions
	// OnStderr, when set, is called with each stderr line as it comes (on the run's
	// goroutine: return quickly). The result keeps the stderr's tail either way.
	OnStderr func(line string)
	err      error
}

// Command describes the harness name with args, supervised with the core's policy.
func Command(name string, args ...string) *Cmd {
	c := exec.Command(name, args...)
	return &Cmd{Path: c.Path, Args: c.Args, Options: DefaultSuperviseOptions(), err: c.Err}
}

// Start starts the harness name with args under the core's policy; see Cmd.Start.
func Start(ctx context.Context, name string, args ...string) (*Run, error) {
	return Command(name, args...).Start(ctx)
}

// Run is a harness under supervision. Frames yields what it says; Wait gives the result.
// Cancelling the Start context runs the core's cancel ladder (SIGINT, then SIGTERM and
// SIGKILL after the graces, to the child's process group); Cancel takes its next step.
type Run struct {
	pid       int
	frames    chan Frame
	cancel    chan struct{}
	detach    chan struct{}
	done      chan struct{}
	consuming atomic.Bool
	result    *Result
	err       error
}

// Start starts the harness in its own process group with its stdout and stderr piped, and
// supervises it on a goroutine of its own until the run is over (the child exited and its
// pipes closed, or the drain after the exit ended).
func (c *Cmd) Start(ctx context.Context) (*Run, error) {
	if c.err != nil {
		return nil, c.err
	}
	start := time.Now()
	sup, err := NewSupervisor(c.Options, 0)
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		sup.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		sup.Close()
		closeAll(outR, outW)
		return nil, err
	}
	cmd := &exec.Cmd{Path: c.Path, Args: c.Args, Dir: c.Dir, Env: c.Env, Stdout: outW, Stderr: errW, SysProcAttr: sysProcAttr()}
	if err := cmd.Start(); err != nil {
		sup.Close()
		closeAll(outR, outW, errR, errW)
		return nil, err
	}
	closeAll(outW, errW)
	r := &Run{
		pid:    cmd.Process.Pid,
		frames: make(chan Frame),
		cancel: make(chan struct{}, 1),
		detach: make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
	d := &driver{
		run: r, sup: sup, start: start, onStderr: c.OnStderr,
		stdout: newPipeReader(outR), stderr: newPipeReader(errR),
		exited: make(chan *os.ProcessState, 1),
	}
	go waitExit(cmd, d.exited)
	go d.stdout.read(r.done)
	go d.stderr.read(r.done)
	go d.loop(ctx)
	return r, nil
}

// Pid is the child's process id (also its process group's).
func (r *Run) Pid() int { return r.pid }

// Frames yields the child's frames as they come; an error of the driver is yielded last.
// Stopping early detaches from the events: the run goes on, and Wait gives its result.
func (r *Run) Frames() iter.Seq2[Frame, error] {
	return func(yield func(Frame, error) bool) {
		r.consuming.Store(true)
		for f := range r.frames {
			if !yield(f, nil) {
				r.detachOnce()
				return
			}
		}
		<-r.done
		if r.err != nil {
			yield(nil, r.err)
		}
	}
}

// Cancel asks for the run to be cancelled (as cancelling the Start context does); a
// further call takes the cancel ladder's next step at once.
func (r *Run) Cancel() {
	select {
	case r.cancel <- struct{}{}:
	default: // one request waits already
	}
}

// Wait waits for the run to be over and returns its result, with its supervision report.
// Called without Frames, it detaches from the events (nobody takes them).
func (r *Run) Wait() (*Result, error) {
	if !r.consuming.Load() {
		r.detachOnce()
	}
	<-r.done
	return r.result, r.err
}

func (r *Run) detachOnce() {
	select {
	case r.detach <- struct{}{}:
	default:
	}
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// chunk is what a pipe gave: bytes, or its end.
type chunk struct {
	data []byte
	end  bool
}

// pipeReader reads one pipe on its goroutine, waiting while paused.
type pipeReader struct {
	file   *os.File
	chunks chan chunk
	mu     sync.Mutex
	cond   *sync.Cond
	paused bool
}

func newPipeReader(f *os.File) *pipeReader {
	p := &pipeReader{file: f, chunks: make(chan chunk)}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *pipeReader) setPaused(paused bool) {
	p.mu.Lock()
	p.paused = paused
	p.mu.Unlock()
	p.cond.Broadcast()
}

func (p *pipeReader) read(done <-chan struct{}) {
	buf := make([]byte, readSize)
	for {
		p.mu.Lock()
		for p.paused {
			p.cond.Wait()
		}
		p.mu.Unlock()
		n, err := p.file.Read(buf)
		c := chunk{data: append([]byte(nil), buf[:n]...), end: err != nil}
		if n > 0 || c.end {
			select {
			case p.chunks <- c:
			case <-done:
				return
			}
		}
		if c.end {
			return
		}
	}
}

// close stops the reading: its Read returns, and it is never paused again.
func (p *pipeReader) close() {
	_ = p.file.Close()
	p.setPaused(false)
}

// driver is a run's goroutine: it owns the supervisor, tells it what happens and does what
// it orders.
type driver struct {
	run      *Run
	sup      *Supervisor
	start    time.Time
	onStderr func(string)
	stdout   *pipeReader
	stderr   *pipeReader
	exited   chan *os.ProcessState
	pending  []Frame
	detached bool
}

func (d *driver) now() time.Duration { return time.Since(d.start) }

func (d *driver) loop(ctx context.Context) {
	r := d.run
	defer func() {
		d.stdout.close()
		d.stderr.close()
		d.sup.Close()
		close(r.frames)
		close(r.done)
	}()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	stdout, stderr, exited, ctxDone := d.stdout.chunks, d.stderr.chunks, d.exited, ctx.Done()
	for {
		var err error
		if due, ok, derr := d.sup.Deadline(); derr != nil {
			err = derr
		} else if ok {
			timer.Reset(max(due-d.now(), 0))
		} else {
			timer.Stop()
		}
		var send chan Frame
		var first Frame
		if len(d.pending) > 0 {
			send, first = r.frames, d.pending[0]
		}
		if err == nil {
			select {
			case c := <-stdout:
				if c.end {
					stdout = nil
					err = d.sup.StdoutClosed(d.now())
				} else {
					err = d.sup.Stdout(d.now(), c.data)
				}
			case c := <-stderr:
				if c.end {
					stderr = nil
					err = d.sup.StderrClosed(d.now())
				} else {
					err = d.sup.Stderr(d.now(), c.data)
				}
			case state := <-exited:
				exited = nil
				how, value := exitOf(state)
				err = d.sup.Exited(d.now(), how, value)
			case <-ctxDone:
				ctxDone = nil
				err = d.sup.Cancel(d.now(), CancelUser, nil)
			case <-r.cancel:
				err = d.sup.Cancel(d.now(), CancelUser, nil)
			case <-r.detach:
				d.detached, d.pending = true, nil
				err = d.sup.SetConsumer(d.now(), false)
			case <-timer.C:
				err = d.sup.Tick(d.now())
			case send <- first:
				d.pending = d.pending[1:]
			}
		}
		if err == nil {
			err = d.obey()
		}
		if err != nil {
			r.err = err
			_ = syscall.Kill(-r.pid, syscall.SIGKILL)
			if exited != nil {
				<-exited // reaped
			}
			return
		}
		if r.result != nil {
			return
		}
	}
}

// exitOf is how the child ended, as the supervisor takes it.
func exitOf(state *os.ProcessState) (ExitKind, int) {
	if state == nil {
		return ExitUnknown, 0
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitSignal, int(ws.Signal())
	}
	return ExitCode, state.ExitCode()
}

// obey does every action, hands stderr lines over, takes events when the consumer is
// ready for them, and takes the result once the run is over.
func (d *driver) obey() error {
	for {
		a, err := d.sup.PollAction()
		if err != nil {
			return err
		}
		switch a.Kind {
		case ActionNone:
		case ActionSignal:
			_ = syscall.Kill(-d.run.pid, syscall.Signal(a.Signal)) // gone already: nothing to do
			continue
		case ActionKillGroup:
			_ = syscall.Kill(-d.run.pid, syscall.SIGKILL)
			continue
		case ActionPauseStdout:
			d.stdout.setPaused(true)
			continue
		case ActionResumeStdout:
			d.stdout.setPaused(false)
			continue
		case ActionClosePipes:
			d.stdout.close()
			d.stderr.close()
			continue
		default:
			return &Error{Kind: KindInternal, Message: "an action this version does not know (a newer libhep)"}
		}
		break
	}
	for {
		line, ok, err := d.sup.PollStderr()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if d.onStderr != nil {
			d.onStderr(line)
		}
	}
	if len(d.pending) == 0 || d.detached {
		events, err := d.sup.PollEvents(256, readSize)
		if err != nil {
			return err
		}
		for _, e := range events {
			if e.Frame != nil && !d.detached {
				d.pending = append(d.pending, e.Frame)
			}
		}
		if len(events) > 0 {
			return d.obey() // taking events can resume stdout, or finish the run
		}
	}
	result, err := d.sup.Result()
	if err != nil {
		return err
	}
	if result != nil && (len(d.pending) == 0 || d.detached) {
		d.run.result = result // the frames were handed over first
	}
	return nil
}
