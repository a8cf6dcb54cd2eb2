// Reads one JSON object per line on stdin, {"toml": "..."}, optionally with "values" (any JSON)
// and "path" (a list of keys). It decodes the TOML into map[string]any with go-toml v1.9.5 as
// gardener v1.150.0's node agent does (pkg/nodeagent/controller/operatingsystemconfig/
// containerd_config.go), decodes "values" with encoding/json into the table at "path" (created
// when missing, as its plugin patches do), and prints per line {"toml": "..."} with what
// toml.NewEncoder(w).Encode writes, or {"error": "..."}.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pelletier/go-toml"
)

type request struct {
	TOML   string          `json:"toml"`
	Path   []string        `json:"path,omitempty"`
	Values json.RawMessage `json:"values,omitempty"`
}

type result struct {
	TOML  *string `json:"toml,omitempty"`
	Error string  `json:"error,omitempty"`
}

func patch(content map[string]any, path []string, values json.RawMessage) error {
	table := content
	for i, key := range path {
		next, ok := table[key].(map[string]any)
		if !ok || next == nil {
			next = map[string]any{}
		}
		if i == len(path)-1 {
			if err := json.Unmarshal(values, &next); err != nil {
				return err
			}
		}
		table[key] = next
		table = next
	}
	return nil
}

func run(req request) (string, error) {
	content := map[string]any{}
	if err := toml.Unmarshal([]byte(req.TOML), &content); err != nil {
		return "", err
	}
	if len(req.Path) > 0 {
		if err := patch(content, req.Path, req.Values); err != nil {
			return "", err
		}
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(content); err != nil {
		return "", err
	}
	return buf.String(), nil
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var r result
		func() {
			defer func() {
				if p := recover(); p != nil {
					r.Error = fmt.Sprint("panic: ", p)
				}
			}()
			if s, err := run(req); err != nil {
				r.Error = err.Error()
			} else {
				r.TOML = &s
			}
		}()
		line, _ := json.Marshal(r)
		fmt.Fprintln(out, string(line))
	}
}
