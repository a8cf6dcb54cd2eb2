// Reads one JSON value per line on stdin and prints, per line, a JSON object: {"yaml": "..."} with
// what sigs.k8s.io/yaml.Marshal writes for the value, or {"error": "..."} where Go refuses it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

type result struct {
	YAML  *string `json:"yaml,omitempty"`
	Error string  `json:"error,omitempty"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var r result
		var v interface{}
		if err := json.Unmarshal(in.Bytes(), &v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if b, err := yaml.Marshal(v); err != nil {
			r.Error = err.Error()
		} else {
			s := string(b)
			r.YAML = &s
		}
		line, _ := json.Marshal(r)
		fmt.Fprintln(out, string(line))
	}
}
