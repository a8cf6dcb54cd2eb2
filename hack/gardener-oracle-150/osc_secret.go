package main

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/client/kubernetes"
	"github.com/gardener/gardener/pkg/component/extensions/operatingsystemconfig/original/components/nodeagent"
)

type oscSecretInput struct {
	OSC        json.RawMessage         `json:"osc"`
	Secrets    []managedResourceSecret `json:"secrets"`
	SecretName string                  `json:"secretName"`
	Pool       string                  `json:"pool"`
	// ResolveSecretRefs is true for shoots (gardenlet's botanist), false for self-hosted shoots
	// (gardenadm). Default true.
	ResolveSecretRefs *bool `json:"resolveSecretRefs,omitempty"`
}

// oscSecretOp runs gardenlet's OperatingSystemConfigSecret: the shoot secret with the stripped
// osc.yaml and its checksum, secret references resolved from the given seed secrets.
func oscSecretOp(raw json.RawMessage) (any, error) {
	var in oscSecretInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	osc := &extensionsv1alpha1.OperatingSystemConfig{}
	if err := json.Unmarshal(in.OSC, osc); err != nil {
		return nil, fmt.Errorf("osc: %w", err)
	}
	seed := fakeclient.NewClientBuilder().WithScheme(kubernetes.SeedScheme).Build()
	for _, s := range in.Secrets {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: osc.Namespace}, Data: s.Data}
		if err := seed.Create(context.Background(), secret); err != nil {
			return nil, err
		}
	}
	resolve := in.ResolveSecretRefs == nil || *in.ResolveSecretRefs
	secret, err := nodeagent.OperatingSystemConfigSecret(context.Background(), seed, osc, in.SecretName, in.Pool, resolve)
	if err != nil {
		return map[string]any{"error": err.Error()}, nil
	}
	return map[string]any{"secret": secret}, nil
}
