// Command kubelet is the upstream Kubernetes kubelet, built from the k8s.io/kubernetes Go module
// pinned in ../../go.mod. This file mirrors cmd/kubelet/kubelet.go of that release verbatim (test
// tooling only: the real-node tests run it inside their nspawn node).
package main

import (
	"context"
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // for JSON log format registration
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // for client metric registration
	_ "k8s.io/component-base/metrics/prometheus/version"  // for version metric registration
	"k8s.io/kubernetes/cmd/kubelet/app"
)

func main() {
	command := app.NewKubeletCommand(context.Background())
	code := cli.Run(command)
	os.Exit(code)
}
