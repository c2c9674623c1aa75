package hep_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	hep "github.com/hep-protocol/hep/bindings-go"
)

func TestTheWriterReturnsTheLineAndWritesItWithANewline(t *testing.T) {
	var out bytes.Buffer
	w, err := hep.NewWriter(&out, "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	line, err := w.Header("s")
	if err != nil || line != `{"type":"hep_header","hep":"v1","fah":"1.0.0","session":"s"}` || out.String() != line+"\n" {
		t.Fatalf("%q %v %q", line, err, out.String())
	}
	if line, err := w.Header("again"); line != "" || err != nil || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("a second header wrote %q (%v)", line, err)
	}
}

func TestTheWriterRefusesWhatItCannotEncode(t *testing.T) {
	w, err := hep.NewWriter(&bytes.Buffer{}, "1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AgentStart(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ToolLiveness("c", "n", "dance", 1, nil, nil); !errors.Is(err, hep.ErrUnencodable) {
		t.Fatalf("an action v1 does not define: %v", err)
	}
	if _, err := w.ToolStart("c", "n", "[1]"); err == nil {
		t.Fatal("arguments that are no object were written")
	}
}

func TestTheWriterReportsASinkThatFails(t *testing.T) {
	w, err := hep.NewWriter(failing{}, "1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	line, err := w.Header("s")
	if !errors.Is(err, hep.ErrIO) || line == "" {
		t.Fatalf("%q %v", line, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AgentStart(); !errors.Is(err, hep.ErrInvalidArgument) {
		t.Fatalf("a call after Close: %v", err)
	}
}

// failing is a sink whose every write fails.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }
