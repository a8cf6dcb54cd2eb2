// Command pause is the pod sandbox's pause process for the real node, which reaches no registry.
// It does what kubernetes v1.34.4 build/pause/linux/pause.c does: sleep until SIGINT or SIGTERM,
// and reap orphaned children (it is PID 1 of the pod's PID namespace when that is shared). A
// static Go binary, so the image needs no libc.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-v" {
		os.Stdout.WriteString("pause.go (gardener-osc real node)\n")
		return
	}
	if os.Getpid() != 1 {
		os.Stderr.WriteString("Warning: pause should be the first process\n")
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	children := make(chan os.Signal, 8)
	signal.Notify(children, syscall.SIGCHLD)
	for {
		select {
		case sig := <-stop:
			os.Stderr.WriteString("Shutting down, got signal: " + sig.String() + "\n")
			os.Exit(0)
		case <-children:
			for {
				var status syscall.WaitStatus
				pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
		}
	}
}
