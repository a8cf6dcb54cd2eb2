package main

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

type opFunc func(json.RawMessage) (interface{}, error)

var ops = map[string]opFunc{
	// validate: decode objects strictly with upstream's schemes and run upstream's validation.
	"validate": validateOp,
	// render: a shoot's node configuration as gardenlet renders it (fake seed client).
	"render": renderOp,
	// oscSecret: gardenlet's OSC secret for an OSC and the seed secrets it references.
	"oscSecret": oscSecretOp,
	// names: OSC keys, ManagedResource secret names and checksums, recomputed.
	"names": namesOp,
	// registry: the ManagedResource secret data gardenlet serializes for shoot objects.
	"registry": registryOp,
	// roundTrip: osc.yaml documents through the node agent's decoder and gardenlet's encoder.
	"roundTrip": roundTripOp,
	// nodeAgent: upstream's node-agent OSC reconciler applying a sequence of osc.yaml on a directory.
	"nodeAgent": nodeAgentOp,
}

func opNames() string {
	names := make([]string, 0, len(ops))
	for name := range ops {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Upstream code logs through controller-runtime and klog; stdout belongs to the protocol.
func silenceUpstreamLogging() {
	logf.SetLogger(logr.Discard())
	klog.SetLogger(logr.Discard())
}
