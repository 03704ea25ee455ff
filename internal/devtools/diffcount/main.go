// Command diffcount runs the differential tests against TFLite Micro (the
// tests of gen/lower whose names end in MatchesTFLM) and prints, per
// operator, how many random cases were compared with TFLM, how many both
// sides refused, how many were skipped because the oracle (a replay of
// recorded TFLM runs, shared/tflm/README.md) has no recording of them, and
// how many mismatched:
//
//	go run ./internal/devtools/diffcount [-short] [-run REGEXP]
//
// It runs them with -long, every case through TFLM (go test's default mode
// runs a subset of each sweep's cases through TFLM: gen/lower/sweep_test.go),
// or with -short, a prefix of each sweep's cases.
//
// Each differential subtest logs one count line (gen/lower's diffTally.log)
// and is named after its operator and types ("RESIZE_BILINEAR_int8"). The
// command exits non-zero when a test failed or no count line was found.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
)

// counts are the summed count lines of one operator.
type counts struct {
	combos, compared, refused, skipped, mismatches int
}

var countLine = regexp.MustCompile(`differential counts: compared (\d+), refused (\d+), skipped (\d+), mismatches (\d+)`)

func main() {
	short := flag.Bool("short", false, "run the tests with -short (a tenth of the cases)")
	run := flag.String("run", "MatchesTFLM", "which tests to run (go test -run)")
	flag.Parse()
	args := []string{"test", "./gen/lower", "-count=1", "-json", "-v", "-run", *run, "-timeout", "30m"}
	if *short {
		args = append(args, "-short")
	} else {
		args = append(args, "-long")
	}
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	out, runErr := cmd.Output()
	byOp, failed, err := parse(bytes.NewReader(out))
	if err != nil {
		fmt.Fprintln(os.Stderr, "diffcount:", err)
		os.Exit(1)
	}
	if len(byOp) == 0 {
		fmt.Fprintln(os.Stderr, "diffcount: no count lines in the test output (is shared/tflm/tflm_ref there?)")
		os.Exit(1)
	}
	write(os.Stdout, byOp)
	if runErr != nil || len(failed) > 0 {
		fmt.Fprintf(os.Stderr, "diffcount: tests failed: %s (%v)\n", strings.Join(failed, ", "), runErr)
		os.Exit(1)
	}
}

// event is the part of a go test -json event that is read here.
type event struct {
	Action, Test, Output string
}

// parse sums the count lines of the test output by operator and lists the
// failed tests.
func parse(r io.Reader) (map[string]*counts, []string, error) {
	byOp := map[string]*counts{}
	var failed []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, nil, fmt.Errorf("reading go test -json output: %w", err)
		}
		if e.Action == "fail" && e.Test != "" {
			failed = append(failed, e.Test)
		}
		m := countLine.FindStringSubmatch(e.Output)
		if e.Action != "output" || m == nil {
			continue
		}
		op := operatorOf(e.Test)
		c := byOp[op]
		if c == nil {
			c = &counts{}
			byOp[op] = c
		}
		var n [4]int
		for i := range n {
			fmt.Sscan(m[i+1], &n[i])
		}
		c.combos++
		c.compared += n[0]
		c.refused += n[1]
		c.skipped += n[2]
		c.mismatches += n[3]
	}
	return byOp, failed, sc.Err()
}

// customOps are the custom operators' names, which are not upper case.
var customOps = []string{"TFLite_Detection_PostProcess"}

// operatorOf is the operator a subtest is named after: the leading run of
// upper-case letters, digits and underscores of its last name element, or
// a custom operator's name.
func operatorOf(test string) string {
	name := test[strings.LastIndex(test, "/")+1:]
	for _, c := range customOps {
		if strings.HasPrefix(name, c) {
			return c
		}
	}
	end := 0
	for i, r := range name {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			break
		}
		end = i + 1
	}
	op := strings.TrimRight(name[:end], "_")
	if op == "" {
		return test
	}
	return op
}

func write(w io.Writer, byOp map[string]*counts) {
	ops := make([]string, 0, len(byOp))
	for op := range byOp {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var total counts
	fmt.Fprintln(w, "| operator | type combinations | cases compared with TFLM | refused (as TFLM, or documented) | skipped (no TFLM recording) | mismatches |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, op := range ops {
		c := byOp[op]
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d |\n", op, c.combos, c.compared, c.refused, c.skipped, c.mismatches)
		total.combos += c.combos
		total.compared += c.compared
		total.refused += c.refused
		total.skipped += c.skipped
		total.mismatches += c.mismatches
	}
	fmt.Fprintf(w, "| all %d operators | %d | %d | %d | %d | %d |\n", len(ops), total.combos, total.compared, total.refused, total.skipped, total.mismatches)
}
