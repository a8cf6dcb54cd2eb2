package main

import (
	"encoding/json"
	"fmt"

	"github.com/Masterminds/semver/v3"
	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/gardener/gardener/pkg/client/kubernetes"
	"github.com/gardener/gardener/pkg/component/extensions/operatingsystemconfig"
	"github.com/gardener/gardener/pkg/features"
	"github.com/gardener/gardener/pkg/utils"
	"github.com/gardener/gardener/pkg/utils/managedresources"
)

// v1.91 locks UseGardenerNodeAgent to true; its code still has the gate-off paths (the
// cloud-config-downloader), which the oracle reaches by registering the gate unlocked.
func init() {
	spec := features.AllFeatureGates[features.UseGardenerNodeAgent]
	spec.LockToDefault = false
	if err := features.DefaultFeatureGate.Add(map[featuregate.Feature]featuregate.FeatureSpec{features.UseGardenerNodeAgent: spec}); err != nil {
		panic(err)
	}
}

func setUseGardenerNodeAgent(on bool) error {
	return features.DefaultFeatureGate.Set(fmt.Sprintf("%s=%t", features.UseGardenerNodeAgent, on))
}

type keyInput struct {
	Pool    string  `json:"pool"`
	Version string  `json:"version"`
	CRI     *string `json:"cri"`
}

type namesInput struct {
	UseGardenerNodeAgent bool       `json:"useGardenerNodeAgent"`
	Keys                 []keyInput `json:"keys"`
	// ManagedResourceSecrets: the logical name (e.g. shoot-gardener-node-agent-worker) and the data.
	ManagedResourceSecrets []seedSecret `json:"managedResourceSecrets"`
	Checksums              [][]byte     `json:"checksums"`
}

type namesResult struct {
	Keys                   []string `json:"keys"`
	ManagedResourceSecrets []string `json:"managedResourceSecrets"`
	Checksums              []string `json:"checksums"`
}

// namesOp recomputes, with upstream's functions, the names and checksums that are derived from
// inputs or bytes: OSC keys, ManagedResource secret names (a hash of their data), and the sha256
// gardenlet puts into checksum annotations.
func namesOp(raw json.RawMessage) (interface{}, error) {
	var in namesInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	if err := setUseGardenerNodeAgent(in.UseGardenerNodeAgent); err != nil {
		return nil, err
	}
	out := namesResult{Keys: []string{}, ManagedResourceSecrets: []string{}, Checksums: []string{}}
	for _, k := range in.Keys {
		version, err := semver.NewVersion(k.Version)
		if err != nil {
			return nil, fmt.Errorf("version %q: %w", k.Version, err)
		}
		var cri *gardencorev1beta1.CRI
		if k.CRI != nil {
			cri = &gardencorev1beta1.CRI{Name: gardencorev1beta1.CRIName(*k.CRI)}
		}
		out.Keys = append(out.Keys, operatingsystemconfig.Key(k.Pool, version, cri))
	}
	for _, s := range in.ManagedResourceSecrets {
		name, _ := managedresources.NewSecret(nil, "", s.Name, s.Data, true)
		out.ManagedResourceSecrets = append(out.ManagedResourceSecrets, name)
	}
	for _, c := range in.Checksums {
		out.Checksums = append(out.Checksums, utils.ComputeSHA256Hex(c))
	}
	return out, nil
}

type registryInput struct {
	Objects []json.RawMessage `json:"objects"`
}

// registryOp serializes shoot objects as gardenlet's ManagedResource registry does: the data
// keys (`<kind>__<namespace>__<name>.yaml`) and bytes of a ManagedResource secret.
func registryOp(raw json.RawMessage) (interface{}, error) {
	var in registryInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	objects := make([]client.Object, 0, len(in.Objects))
	for i, o := range in.Objects {
		obj, _, err := kubernetes.ShootCodec.UniversalDeserializer().Decode(o, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("objects[%d]: %w", i, err)
		}
		co, ok := obj.(client.Object)
		if !ok {
			return nil, fmt.Errorf("objects[%d]: %T is no client.Object", i, obj)
		}
		objects = append(objects, co)
	}
	data, err := managedresources.NewRegistry(kubernetes.ShootScheme, kubernetes.ShootCodec, kubernetes.ShootSerializer).AddAllAndSerialize(objects...)
	if err != nil {
		return nil, err
	}
	return data, nil
}
