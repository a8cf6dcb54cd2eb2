//go:build tools

// Package tools pins upstream's gardener-node-agent command, so that `go mod tidy` keeps every module
// its build needs in go.mod and go.sum. build.sh builds it by import path.
package tools

import _ "github.com/gardener/gardener/cmd/gardener-node-agent"
