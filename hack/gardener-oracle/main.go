// gardener-oracle answers questions about Gardener's node-configuration contract with Gardener's
// own code (github.com/gardener/gardener at the version go.mod pins). It reads one JSON request
// per line on stdin and writes one JSON response per line on stdout, in order:
//
//	{"id": 7, "op": "validate", "input": {...}}   ->   {"id": 7, "result": {...}}
//	                                                   {"id": 7, "error": "..."}
//
// The operations (see ops.go) decode and validate objects strictly with upstream's schemes, render
// a shoot's node configuration with gardenlet's OperatingSystemConfig deployer, build OSC secrets
// and names with upstream's functions, round-trip OSC documents through upstream's decoder and
// encoder, and run upstream's node-agent OSC reconciler against a directory. It is test tooling
// only: test/compat drives it, one long-lived process per test run.
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
	ID     int64       `json:"id"`
	Result interface{} `json:"result,omitempty"`
	Error  string      `json:"error,omitempty"`
}

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "--help" || os.Args[1] == "-h") {
		fmt.Println("usage: gardener-oracle < requests.jsonl > responses.jsonl\noperations:", opNames())
		return
	}
	// The node agent's files are created under this umask on a real node (systemd's default).
	syscall.Umask(0o022)
	silenceUpstreamLogging()

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<28)
	out := bufio.NewWriter(os.Stdout)
	encoder := json.NewEncoder(out)
	encoder.SetEscapeHTML(false)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "gardener-oracle: unreadable request: %v\n", err)
			os.Exit(2)
		}
		if err := encoder.Encode(handle(req)); err != nil {
			fmt.Fprintf(os.Stderr, "gardener-oracle: cannot write response: %v\n", err)
			os.Exit(1)
		}
		if err := out.Flush(); err != nil {
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "gardener-oracle: reading stdin: %v\n", err)
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
