package main

import (
	"context"
	"fmt"
	"net"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	secretsutils "github.com/gardener/gardener/pkg/utils/secrets"
	secretsmanager "github.com/gardener/gardener/pkg/utils/secrets/manager"
)

// secretsManager stands in for gardenlet's secrets manager with the secrets node configuration
// reads (cluster CA, kubelet CA, SSH key pairs) under the names and contents the request gives,
// stored in the fake seed client as well. Upstream's fake manager
// (pkg/utils/secrets/manager/fake) generates its own contents, which a comparison with the
// project's renderer cannot use.
type secretsManager struct {
	byName map[string]*corev1.Secret
}

var _ secretsmanager.Interface = &secretsManager{}

// holds reports whether the seed secret of this name is one of the manager's (an input).
func (m *secretsManager) holds(secretName string) bool {
	for _, s := range m.byName {
		if s.Name == secretName {
			return true
		}
	}
	return false
}

func newSecretsManager(ctx context.Context, c client.Client, namespace string, in renderInput) (*secretsManager, error) {
	m := &secretsManager{byName: map[string]*corev1.Secret{}}
	add := func(logical, name string, data map[string][]byte) error {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Data: data}
		m.byName[logical] = secret
		return c.Create(ctx, secret.DeepCopy())
	}
	if err := add(v1beta1constants.SecretNameCACluster, in.ClusterCAName, map[string][]byte{secretsutils.DataKeyCertificateBundle: in.ClusterCA}); err != nil {
		return nil, err
	}
	if err := add(v1beta1constants.SecretNameCAKubelet, "ca-kubelet", map[string][]byte{secretsutils.DataKeyCertificateBundle: in.KubeletCA}); err != nil {
		return nil, err
	}
	names := []string{v1beta1constants.SecretNameSSHKeyPair, v1beta1constants.SecretNameSSHKeyPair + "-old"}
	for i, key := range in.SSHPublicKeys {
		if i >= len(names) {
			return nil, fmt.Errorf("at most %d SSH public keys (current and old)", len(names))
		}
		if err := add(names[i], "ssh-keypair-"+fmt.Sprint(i), map[string][]byte{secretsutils.DataKeySSHAuthorizedKeys: []byte(key)}); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *secretsManager) Get(name string, opts ...secretsmanager.GetOption) (*corev1.Secret, bool) {
	options := &secretsmanager.GetOptions{}
	options.ApplyOptions(opts)
	if options.Class != nil && fmt.Sprint(*options.Class) == "old" {
		name += "-old"
	}
	secret, ok := m.byName[name]
	if !ok {
		return nil, false
	}
	return secret.DeepCopy(), true
}

func (m *secretsManager) Generate(context.Context, secretsutils.ConfigInterface, ...secretsmanager.GenerateOption) (*corev1.Secret, error) {
	return nil, fmt.Errorf("the oracle's secrets manager generates nothing")
}

func (m *secretsManager) Identity() string { return "gardener-oracle-150" }

func (m *secretsManager) Cleanup(context.Context) error { return nil }

func netIP(text string) net.IP {
	return net.ParseIP(strings.TrimSpace(text))
}
