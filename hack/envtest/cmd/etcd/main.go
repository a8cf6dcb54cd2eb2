// Command etcd is the upstream etcd server, built from the go.etcd.io/etcd/server/v3
// module at the version k8s.io/kubernetes pins (see ../../go.mod). This mirrors
// upstream's server/main.go (test tooling only).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
