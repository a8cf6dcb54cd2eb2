// gardener-oracle-150 answers questions about Gardener v1.150.0's node-configuration contract with
// Gardener's own code (github.com/gardener/gardener and github.com/gardener/gardener/pkg/apis at
// the versions go.mod pins). The protocol is the one of hack/gardener-oracle (the v1.91.4 oracle):
// one JSON request per line on stdin, one JSON response per line on stdout, in order:
//
//	{"id": 7, "op": "validate", "input": {...}}   ->   {"id": 7, "result": {...}}
//	                                                   {"id": 7, "error": "..."}
//
// The operations are listed in ops.go. It is test tooling only: test/compat/v1.150 drives it
// through test/compat/support/oracle-150.ts, one long-lived process per test run.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"syscall"
)

type request struct {
	ID    int64           `json:"id"`
	Op    string          `json:"op"`
	Input json.RawMessage `json:"input"`
}

type response struct {
	ID     int64  `json:"id"`
	Result any    `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "--help" || os.Args[1] == "-h") {
		fmt.Println("usage: gardener-oracle-150 < requests.jsonl > responses.jsonl\noperations:", opNames())
		return
	}
	silenceUpstreamLogging()
	registerGardenletFeatureGates()
	// The node agent's files are created under this umask on a real node (systemd's default).
	syscall.Umask(0o022)

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<28)
	out := bufio.NewWriter(os.Stdout)
	encoder := json.NewEncoder(out)
	encoder.SetEscapeHTML(false)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "gardener-oracle-150: unreadable request: %v\n", err)
			os.Exit(2)
		}
		if err := encoder.Encode(handle(req)); err != nil {
			fmt.Fprintf(os.Stderr, "gardener-oracle-150: cannot write response: %v\n", err)
			os.Exit(1)
		}
		if err := out.Flush(); err != nil {
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "gardener-oracle-150: reading stdin: %v\n", err)
		os.Exit(1)
	}
}

// handle runs one operation; a panic in upstream code becomes the error of this request only.
func handle(req request) (resp response) {
	resp.ID = req.ID
	defer func() {
		if r := recover(); r != nil {
			resp.Result = nil
			resp.Error = fmt.Sprintf("panic in %s: %v\n%s", req.Op, r, debug.Stack())
		}
	}()
	op, ok := ops[req.Op]
	if !ok {
		resp.Error = fmt.Sprintf("unknown op %q (known: %s)", req.Op, opNames())
		return resp
	}
	result, err := op(req.Input)
	if err != nil {
		resp.Error = err.Error()
		return resp
	}
	resp.Result = result
	return resp
}
