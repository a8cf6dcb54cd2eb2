package main

import (
	"k8s.io/component-base/featuregate"

	"github.com/gardener/gardener/pkg/features"
)

// withFeatureGates sets gardenlet's feature gates (gardener v1.150.0 pkg/features, the
// DefaultFeatureGate gardenlet's components read, e.g. `OpenTelemetryCollector` in
// pkg/component/extensions/operatingsystemconfig/original/original.go `Components`) for one
// request and returns what restores them, so that the next request of the same process sees the
// defaults again.
func withFeatureGates(gates map[string]bool) (restore func(), err error) {
	if len(gates) == 0 {
		return func() {}, nil
	}
	previous := make(map[string]bool, len(gates))
	for name := range gates {
		previous[name] = features.DefaultFeatureGate.Enabled(featuregate.Feature(name))
	}
	if err := features.DefaultFeatureGate.SetFromMap(gates); err != nil {
		return nil, err
	}
	return func() { _ = features.DefaultFeatureGate.SetFromMap(previous) }, nil
}
