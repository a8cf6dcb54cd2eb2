package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardenletconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/gardenlet/v1alpha1"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/client/kubernetes"
	kubernetesfake "github.com/gardener/gardener/pkg/client/kubernetes/fake"
	"github.com/gardener/gardener/pkg/component/extensions/operatingsystemconfig"
	"github.com/gardener/gardener/pkg/gardenlet/operation"
	"github.com/gardener/gardener/pkg/gardenlet/operation/botanist"
	seedpkg "github.com/gardener/gardener/pkg/gardenlet/operation/seed"
	shootpkg "github.com/gardener/gardener/pkg/gardenlet/operation/shoot"
)

type renderInput struct {
	// Cluster is the extensions.gardener.cloud/v1alpha1 Cluster (JSON) with Shoot, CloudProfile, Seed.
	Cluster     json.RawMessage `json:"cluster"`
	NodeLogging bool            `json:"nodeLogging"`
	Now         time.Time       `json:"now"`
	// APIServerURL is https://api.<internal cluster domain>.
	APIServerURL      string   `json:"apiServerURL"`
	ClusterDNSAddress string   `json:"clusterDNSAddress,omitempty"`
	ClusterCA         []byte   `json:"clusterCA"`
	ClusterCAName     string   `json:"clusterCASecretName"`
	KubeletCA         []byte   `json:"kubeletCA"`
	SSHPublicKeys     []string `json:"sshPublicKeys"`
	// OSExtension is what the OS extension writes into each OSC's status, by OSC name.
	OSExtension map[string]osExtensionStatus `json:"osExtension"`
	// FeatureGates are gardenlet's feature gates for this render (default: their defaults).
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
	// RegistryCABundle is the image vector's CA bundle (gardenlet's operation.RegistryCABundle).
	RegistryCABundle *string `json:"registryCABundle,omitempty"`
}

type renderResult struct {
	// Seed holds the OSCs as gardenlet wrote them (before the OS extension), then the Secrets and
	// ManagedResources gardenlet wrote into the seed's fake client.
	Seed []json.RawMessage `json:"seed"`
}

// renderOp renders a shoot's node configuration with gardenlet v1.150.0's own code: the botanist's
// values wiring (DefaultOperatingSystemConfig, DeployOperatingSystemConfig in gardener v1.150.0
// pkg/gardenlet/operation/botanist/operatingsystemconfig.go), the OSC deployer with a fake seed
// client and secrets manager, a stand-in OS extension, Wait, and
// DeployManagedResourceForGardenerNodeAgent (the OSC secrets per pool and the RBAC secret).
func renderOp(raw json.RawMessage) (any, error) {
	var in renderInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	cluster := &extensionsv1alpha1.Cluster{}
	if err := json.Unmarshal(in.Cluster, cluster); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	shoot, cloudProfile, seed := &gardencorev1beta1.Shoot{}, &gardencorev1beta1.CloudProfile{}, &gardencorev1beta1.Seed{}
	for what, into := range map[string]any{"shoot": shoot, "cloudProfile": cloudProfile, "seed": seed} {
		rawObj := map[string][]byte{"shoot": cluster.Spec.Shoot.Raw, "cloudProfile": cluster.Spec.CloudProfile.Raw, "seed": cluster.Spec.Seed.Raw}[what]
		if err := json.Unmarshal(rawObj, into); err != nil {
			return nil, fmt.Errorf("cluster.spec.%s: %w", what, err)
		}
	}
	applyAPIServerDefaults(shoot, cluster.Name)
	restoreFeatureGates, err := withFeatureGates(in.FeatureGates)
	if err != nil {
		return nil, fmt.Errorf("featureGates: %w", err)
	}
	defer restoreFeatureGates()

	ctx := context.Background()
	operatingsystemconfig.TimeNow = func() time.Time { return in.Now }
	seedClient := fakeclient.NewClientBuilder().WithScheme(kubernetes.SeedScheme).Build()
	secrets, err := newSecretsManager(ctx, seedClient, cluster.Name, in)
	if err != nil {
		return nil, err
	}
	b, err := newBotanist(in, cluster.Name, shoot, cloudProfile, seed, seedClient, secrets)
	if err != nil {
		return nil, err
	}
	osc, err := b.DefaultOperatingSystemConfig()
	if err != nil {
		return nil, fmt.Errorf("DefaultOperatingSystemConfig: %w", err)
	}
	b.Shoot.Components.Extensions.OperatingSystemConfig = osc
	if err := b.DeployOperatingSystemConfig(ctx); err != nil {
		return nil, fmt.Errorf("DeployOperatingSystemConfig: %w", err)
	}
	skip := func(name string) bool { return secrets.holds(name) || strings.HasPrefix(name, osExtensionSecretPrefix) }
	deployed, err := dumpObjects(ctx, seedClient, cluster.Name, skip, "OperatingSystemConfig")
	if err != nil {
		return nil, err
	}
	if err := runOSExtension(ctx, seedClient, cluster.Name, in.Now, in.OSExtension); err != nil {
		return nil, err
	}
	if err := osc.Wait(ctx); err != nil {
		return nil, fmt.Errorf("OperatingSystemConfig Wait: %w", err)
	}
	if err := b.DeployManagedResourceForGardenerNodeAgent(ctx); err != nil {
		return nil, fmt.Errorf("DeployManagedResourceForGardenerNodeAgent: %w", err)
	}
	objects, err := dumpObjects(ctx, seedClient, cluster.Name, skip, "Secret", "ManagedResource")
	if err != nil {
		return nil, err
	}
	return renderResult{Seed: append(deployed, objects...)}, nil
}

// applyAPIServerDefaults sets the API server's defaults (gardener v1.150.0 pkg/apis/core/v1beta1
// defaults_shoot.go) that gardenlet dereferences unchecked: a machine architecture, the first IP
// family, kube-controller-manager's nodeMonitorGracePeriod (40s). Nothing else is defaulted: both
// renderers read the same Shoot.
func applyAPIServerDefaults(shoot *gardencorev1beta1.Shoot, technicalID string) {
	for i := range shoot.Spec.Provider.Workers {
		if shoot.Spec.Provider.Workers[i].Machine.Architecture == nil {
			shoot.Spec.Provider.Workers[i].Machine.Architecture = ptr.To(v1beta1constants.ArchitectureAMD64)
		}
	}
	if shoot.Spec.Networking == nil {
		shoot.Spec.Networking = &gardencorev1beta1.Networking{}
	}
	if len(shoot.Spec.Networking.IPFamilies) == 0 {
		shoot.Spec.Networking.IPFamilies = []gardencorev1beta1.IPFamily{gardencorev1beta1.IPFamilyIPv4}
	}
	if shoot.Spec.Kubernetes.KubeControllerManager == nil {
		shoot.Spec.Kubernetes.KubeControllerManager = &gardencorev1beta1.KubeControllerManagerConfig{}
	}
	if shoot.Spec.Kubernetes.KubeControllerManager.NodeMonitorGracePeriod == nil {
		shoot.Spec.Kubernetes.KubeControllerManager.NodeMonitorGracePeriod = &metav1.Duration{Duration: 40 * time.Second}
	}
	if shoot.Status.TechnicalID == "" {
		shoot.Status.TechnicalID = technicalID
	}
}

func newBotanist(
	in renderInput,
	namespace string,
	shoot *gardencorev1beta1.Shoot,
	cloudProfile *gardencorev1beta1.CloudProfile,
	seed *gardencorev1beta1.Seed,
	seedClient client.Client,
	secrets *secretsManager,
) (*botanist.Botanist, error) {
	version, err := semver.NewVersion(shoot.Spec.Kubernetes.Version)
	if err != nil {
		return nil, fmt.Errorf("shoot kubernetes version: %w", err)
	}
	networks, err := shootpkg.ToNetworks(shoot, false)
	if err != nil {
		return nil, err
	}
	if in.ClusterDNSAddress != "" {
		networks.CoreDNS = []net.IP{netIP(in.ClusterDNSAddress)}
	}
	const apiPrefix = "https://api."
	if !strings.HasPrefix(in.APIServerURL, apiPrefix) {
		return nil, fmt.Errorf("apiServerURL %q: gardenlet only renders https://api.<internal cluster domain>", in.APIServerURL)
	}

	s := &shootpkg.Shoot{
		ControlPlaneNamespace: namespace,
		KubernetesVersion:     version,
		InternalClusterDomain: ptr.To(strings.TrimPrefix(in.APIServerURL, apiPrefix)),
		CloudProfile:          cloudProfile,
		Purpose:               v1beta1helper.GetPurpose(shoot),
		NodeLocalDNSEnabled:   v1beta1helper.IsNodeLocalDNSEnabled(shoot.Spec.SystemComponents),
		Networks:              networks,
		Components:            &shootpkg.Components{Extensions: &shootpkg.Extensions{}},
	}
	s.SetInfo(shoot)

	sd := &seedpkg.Seed{}
	sd.SetInfo(seed)

	// Node logging as gardenlet's configuration decides it: logging on, Vali on, and this shoot's
	// purpose among the node-logging purposes.
	logging := &gardenletconfigv1alpha1.Logging{Enabled: ptr.To(in.NodeLogging), Vali: &gardenletconfigv1alpha1.Vali{Enabled: ptr.To(true)}}
	if in.NodeLogging {
		logging.ShootNodeLogging = &gardenletconfigv1alpha1.ShootNodeLogging{ShootPurposes: []gardencorev1beta1.ShootPurpose{s.Purpose}}
	}
	op := &operation.Operation{
		Config:         &gardenletconfigv1alpha1.GardenletConfiguration{Logging: logging},
		Logger:         logr.Discard(),
		Seed:           sd,
		Shoot:          s,
		SeedClientSet:  kubernetesfake.NewClientSetBuilder().WithClient(seedClient).Build(),
		SecretsManager: secrets,
	}
	op.RegistryCABundle = in.RegistryCABundle
	return &botanist.Botanist{Operation: op}, nil
}
