package main

import (
	"encoding/json"
	"fmt"

	"github.com/Masterminds/semver/v3"

	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/gardener/gardener/pkg/component/extensions/operatingsystemconfig"
	"github.com/gardener/gardener/pkg/utils"
	"github.com/gardener/gardener/pkg/utils/managedresources"
)

// keyInput holds what gardenlet v1.150.0 derives an OSC key from (calculateKeyForValues in
// gardener v1.150.0 pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go):
// the shoot's Kubernetes version and kubelet config (made effective for the worker there), the
// credentials rotation status, the worker, NodeLocalDNS and the kube-proxy config.
type keyInput struct {
	Version             string                                      `json:"version"`
	CredentialsRotation *gardencorev1beta1.ShootCredentialsRotation `json:"credentialsRotation,omitempty"`
	Worker              gardencorev1beta1.Worker                    `json:"worker"`
	NodeLocalDNSEnabled bool                                        `json:"nodeLocalDNSEnabled"`
	KubeletConfig       *gardencorev1beta1.KubeletConfig            `json:"kubeletConfig,omitempty"`
	KubeProxyConfig     *gardencorev1beta1.KubeProxyConfig          `json:"kubeProxyConfig,omitempty"`
}

type oscNames struct {
	// Key is the OSC secret name in the shoot (and the Machines' secret-name label).
	Key       string `json:"key"`
	Provision string `json:"provision"`
	Reconcile string `json:"reconcile"`
}

type managedResourceSecret struct {
	Name string            `json:"name"`
	Data map[string][]byte `json:"data"`
}

type namesInput struct {
	Keys []keyInput `json:"keys"`
	// ManagedResourceSecrets: the logical name (e.g. shoot-gardener-node-agent) and the data.
	ManagedResourceSecrets []managedResourceSecret `json:"managedResourceSecrets"`
	Checksums              [][]byte                `json:"checksums"`
}

type namesResult struct {
	Keys                   []oscNames `json:"keys"`
	ManagedResourceSecrets []string   `json:"managedResourceSecrets"`
	Checksums              []string   `json:"checksums"`
}

// namesOp recomputes, with upstream's functions, the names and checksums that are derived from
// inputs or bytes: OSC keys and names, ManagedResource secret names (a hash of their data), and
// the sha256 gardenlet puts into checksum annotations.
func namesOp(raw json.RawMessage) (any, error) {
	var in namesInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	out := namesResult{Keys: []oscNames{}, ManagedResourceSecrets: []string{}, Checksums: []string{}}
	for i, k := range in.Keys {
		key, err := oscKey(k)
		if err != nil {
			return nil, fmt.Errorf("keys[%d]: %w", i, err)
		}
		// The purpose suffixes of oscPurposeSuffix (unexported, same file as Key).
		out.Keys = append(out.Keys, oscNames{Key: key, Provision: key + "-init", Reconcile: key + "-original"})
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

// oscKey follows calculateKeyForValues (unexported): in-place pools keep a fixed name, every
// other pool gets operatingsystemconfig.Key over the effective version and kubelet config.
func oscKey(k keyInput) (string, error) {
	worker := k.Worker
	if v1beta1helper.IsUpdateStrategyInPlace(worker.UpdateStrategy) {
		return "gardener-node-agent-" + worker.Name, nil
	}
	controlPlane, err := semver.NewVersion(k.Version)
	if err != nil {
		return "", fmt.Errorf("version %q: %w", k.Version, err)
	}
	version, err := v1beta1helper.CalculateEffectiveKubernetesVersion(controlPlane, worker.Kubernetes)
	if err != nil {
		return "", err
	}
	kubelet := v1beta1helper.CalculateEffectiveKubeletConfiguration(k.KubeletConfig, worker.Kubernetes)
	kubeProxy := k.KubeProxyConfig
	if kubeProxy == nil {
		kubeProxy = &gardencorev1beta1.KubeProxyConfig{}
	}
	return operatingsystemconfig.Key(version, k.CredentialsRotation, &worker, k.NodeLocalDNSEnabled, kubelet, kubeProxy), nil
}
