package main

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	gardenletfeatures "github.com/gardener/gardener/pkg/gardenlet/features"
)

type opFunc func(json.RawMessage) (any, error)

var ops = map[string]opFunc{
	// validate: decode objects strictly with v1.150's schemes and run v1.150's validation.
	"validate": validateOp,
	// render: a shoot's node configuration as gardenlet v1.150.0 renders it (fake seed client).
	"render": renderOp,
	// names: OSC keys (16 hex digits over 6 inputs), OSC names, ManagedResource secret names and
	// checksums, recomputed.
	"names": namesOp,
	// oscSecret: gardenlet's OSC secret (stripped osc.yaml and its checksum) for an OSC.
	"oscSecret": oscSecretOp,
	// registry: the ManagedResource secret data gardenlet serializes for shoot objects.
	"registry": registryOp,
	// roundTrip: osc.yaml documents through the node agent's decoder and gardenlet's encoder.
	"roundTrip": roundTripOp,
	// nodeAgent: the node agent's OSC reconciler on a real directory, fake D-Bus and containerd.
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

// gardenlet registers its feature gates at start-up (cmd/gardenlet/app, gardener v1.150.0); the
// OSC deployer reads them (e.g. OpenTelemetryCollector, on by default), so they must be known
// before anything renders.
func registerGardenletFeatureGates() {
	gardenletfeatures.RegisterFeatureGates()
}
