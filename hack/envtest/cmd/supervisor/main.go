// Command supervisor runs one test server (kube-apiserver, etcd) as a child and
// makes sure it never outlives whoever started the supervisor (the mocha run),
// even if that parent is SIGKILLed. Usage:
//
//	supervisor [--grace=DURATION] -- CMD [ARGS...]
//
// Behaviour:
//
//   - CMD is started in its own process group (Setpgid) with stdin/stdout/stderr
//     inherited and Pdeathsig=SIGKILL, so it dies if the supervisor itself is
//     SIGKILLed.
//   - The supervisor sets PR_SET_PDEATHSIG=SIGTERM on itself and additionally
//     polls getppid(): when its parent goes away it terminates the child's whole
//     process group (SIGTERM, then SIGKILL after the grace period).
//   - SIGTERM/SIGINT/SIGHUP/SIGQUIT received by the supervisor are forwarded to
//     the child's process group; if the child has not exited after the grace
//     period the group is SIGKILLed. A second signal SIGKILLs at once.
//   - The supervisor exits with the child's exit code (128+N if the child was
//     killed by signal N, 127 if it could not be started). Whatever is left in
//     the child's process group after the child exited is SIGKILLed.
//
// Test tooling only (see ../../README.md).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "supervisor[%d]: "+format+"\n", append([]any{os.Getpid()}, args...)...)
}

func main() {
	// Pdeathsig of the child is tied to the OS thread that forked it (golang/go#27505):
	// keep the main goroutine on one thread for the whole lifetime of the process.
	runtime.LockOSThread()

	origPPID := os.Getppid()
	// Ask the kernel to SIGTERM us when our parent dies. Checked again below for the race
	// where the parent died before prctl took effect.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGTERM), 0, 0, 0); err != nil {
		logf("prctl(PR_SET_PDEATHSIG): %v (falling back to polling getppid)", err)
	}

	fs := flag.NewFlagSet("supervisor", flag.ContinueOnError)
	grace := fs.Duration("grace", 10*time.Second, "time between SIGTERM and SIGKILL of the child's process group")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: supervisor [--grace=10s] -- CMD [ARGS...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	args := fs.Args()
	if len(args) == 0 {
		fs.Usage()
		os.Exit(2)
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)

	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf("cannot start %q: %v", args[0], err)
		os.Exit(127)
	}
	pgid := cmd.Process.Pid // Setpgid with Pgid 0: the child leads a new group
	killGroup := func(sig syscall.Signal) {
		if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			logf("kill(-%d, %v): %v", pgid, sig, err)
		}
	}

	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()

	parentGone := func() bool { return os.Getppid() != origPPID } // reparented to init or a subreaper
	ticker := time.NewTicker(500 * time.Millisecond)
	defer ticker.Stop()
	var killTimer <-chan time.Time
	terminating := false
	terminate := func(sig syscall.Signal, why string) {
		if terminating {
			logf("%s again: SIGKILL to process group %d", why, pgid)
			killGroup(syscall.SIGKILL)
			return
		}
		terminating = true
		logf("%s: sending %v to process group %d (SIGKILL in %v)", why, sig, pgid, *grace)
		killGroup(sig)
		killTimer = time.After(*grace)
	}
	if parentGone() {
		terminate(syscall.SIGTERM, "parent already gone")
	}

loop:
	for {
		select {
		case <-exited:
			break loop
		case s := <-sigs:
			sig := s.(syscall.Signal)
			why := "received " + sig.String()
			if parentGone() {
				why += " (parent died)"
			}
			terminate(sig, why)
		case <-ticker.C:
			if !terminating && parentGone() {
				terminate(syscall.SIGTERM, "parent died")
			}
		case <-killTimer:
			logf("grace period over: SIGKILL to process group %d", pgid)
			killGroup(syscall.SIGKILL)
			killTimer = nil
		}
	}

	// Reap stragglers the child may have left in its group.
	killGroup(syscall.SIGKILL)

	code := 0
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		switch {
		case ws.Exited():
			code = ws.ExitStatus()
		case ws.Signaled():
			code = 128 + int(ws.Signal())
		default:
			code = 1
		}
	} else if !cmd.ProcessState.Success() {
		code = 1
	}
	os.Exit(code)
}
