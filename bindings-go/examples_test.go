package hep_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// snippetSources are the tested files docs/go.md quotes, by `// START name` ... `// END
// name` regions (as scripts/check_docs.py reads Python's and Swift's).
var snippetSources = []string{"example_test.go", "../examples/go/main.go"}

var (
	snippetTag = regexp.MustCompile(`^<!-- snippet: ([\w.-]+) -->$`)
	marker     = regexp.MustCompile(`^\s*// (START|END) ([\w.-]+)\s*$`)
)

// regions is every START/END region of the sources, dedented.
func regions(t *testing.T) map[string]string {
	t.Helper()
	found := map[string]string{}
	for _, path := range snippetSources {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var body []string
		name := ""
		for _, line := range strings.Split(string(data), "\n") {
			m := marker.FindStringSubmatch(line)
			switch {
			case m != nil && m[1] == "START":
				name, body = m[2], nil
			case m != nil && m[1] == "END":
				if m[2] != name {
					t.Fatalf("%s: END %s without its START", path, m[2])
				}
				found[name] = dedent(body)
				name = ""
			case name != "":
				body = append(body, line)
			}
		}
	}
	return found
}

// dedent removes the tabs every non-empty line starts with.
func dedent(lines []string) string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if common < 0 || n < common {
			common = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			l = l[common:]
		}
		out[i] = l
	}
	return strings.Trim(strings.Join(out, "\n"), "\n")
}

func TestTheDocsGoSnippetsAreTestedCode(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "go.md"))
	if err != nil {
		t.Fatal(err)
	}
	found := regions(t)
	lines := strings.Split(string(data), "\n")
	checked := 0
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		start := i
		var body []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		m := snippetTag.FindStringSubmatch(lines[max(start-1, 0)])
		if m == nil {
			t.Errorf("docs/go.md:%d: a go block without a `<!-- snippet: NAME -->` line above", start+1)
			continue
		}
		want, ok := found[m[1]]
		if !ok {
			t.Errorf("docs/go.md:%d: snippet %q has no `// START %s` region", start+1, m[1], m[1])
			continue
		}
		if got := strings.Trim(strings.Join(body, "\n"), "\n"); got != want {
			t.Errorf("docs/go.md:%d: snippet %q differs from its region:\n%s\n--- want ---\n%s", start+1, m[1], got, want)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("docs/go.md quotes no snippet")
	}
}
