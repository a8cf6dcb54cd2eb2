package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/gardener/gardener/pkg/apis/core"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	v1beta1helper "github.com/gardener/gardener/pkg/apis/core/v1beta1/helper"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/client/kubernetes"
	kubernetesfake "github.com/gardener/gardener/pkg/client/kubernetes/fake"
	"github.com/gardener/gardener/pkg/component/extensions/operatingsystemconfig"
	valiconstants "github.com/gardener/gardener/pkg/component/observability/logging/vali/constants"
	gardenletconfig "github.com/gardener/gardener/pkg/gardenlet/apis/config"
	"github.com/gardener/gardener/pkg/gardenlet/operation"
	"github.com/gardener/gardener/pkg/gardenlet/operation/botanist"
	seedpkg "github.com/gardener/gardener/pkg/gardenlet/operation/seed"
	shootpkg "github.com/gardener/gardener/pkg/gardenlet/operation/shoot"
	gardenerutils "github.com/gardener/gardener/pkg/utils/gardener"
)

type renderInput struct {
	// Cluster is the extensions.gardener.cloud/v1alpha1 Cluster (JSON) with Shoot, CloudProfile, Seed.
	Cluster              json.RawMessage `json:"cluster"`
	UseGardenerNodeAgent bool            `json:"useGardenerNodeAgent"`
	// LegacyNodes also deploys the cloud-config-downloader's executor ManagedResource (a migration).
	LegacyNodes bool      `json:"legacyNodes"`
	NodeLogging bool      `json:"nodeLogging"`
	Now         time.Time `json:"now"`
	// APIServerURL is https://api.<internal cluster domain>.
	APIServerURL      string   `json:"apiServerURL"`
	ClusterDNSAddress string   `json:"clusterDNSAddress,omitempty"`
	ClusterCA         []byte   `json:"clusterCA"`
	ClusterCAName     string   `json:"clusterCASecretName"`
	KubeletCA         []byte   `json:"kubeletCA"`
	SSHPublicKeys     []string `json:"sshPublicKeys"`
	// OSExtension is what the OS extension writes into each OSC's status, by OSC name.
	OSExtension map[string]osExtensionStatus `json:"osExtension"`
}

type renderResult struct {
	// Seed holds every object gardenlet wrote into the seed's fake client.
	Seed []json.RawMessage `json:"seed"`
}

// renderOp renders a shoot's node configuration with gardenlet's own code: the botanist's values
// wiring (DefaultOperatingSystemConfig, DeployOperatingSystemConfig), the OSC deployer with a
// fake seed client and secrets manager, a stand-in OS extension, and the botanist's
// ManagedResources for the node agent (and, with legacy nodes, the executor).
func renderOp(raw json.RawMessage) (interface{}, error) {
	var in renderInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	if err := setUseGardenerNodeAgent(in.UseGardenerNodeAgent); err != nil {
		return nil, err
	}
	cluster := &extensionsv1alpha1.Cluster{}
	if err := json.Unmarshal(in.Cluster, cluster); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	shoot, cloudProfile, seed := &gardencorev1beta1.Shoot{}, &gardencorev1beta1.CloudProfile{}, &gardencorev1beta1.Seed{}
	for what, into := range map[string]interface{}{"shoot": shoot, "cloudProfile": cloudProfile, "seed": seed} {
		rawObj := map[string][]byte{"shoot": cluster.Spec.Shoot.Raw, "cloudProfile": cluster.Spec.CloudProfile.Raw, "seed": cluster.Spec.Seed.Raw}[what]
		if err := json.Unmarshal(rawObj, into); err != nil {
			return nil, fmt.Errorf("cluster.spec.%s: %w", what, err)
		}
	}
	// The API server's defaults that gardenlet dereferences unchecked (a machine architecture, a
	// first IP family). Nothing else is defaulted: both renderers read the same Shoot.
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
	if shoot.Status.TechnicalID == "" {
		shoot.Status.TechnicalID = cluster.Name
	}

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
	// The OSCs as gardenlet wrote them, before the OS extension touches them.
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
	if in.UseGardenerNodeAgent {
		if err := b.DeployManagedResourceForGardenerNodeAgent(ctx); err != nil {
			return nil, fmt.Errorf("DeployManagedResourceForGardenerNodeAgent: %w", err)
		}
	}
	if in.LegacyNodes || !in.UseGardenerNodeAgent {
		if err := b.DeployManagedResourceForCloudConfigExecutor(ctx); err != nil {
			return nil, fmt.Errorf("DeployManagedResourceForCloudConfigExecutor: %w", err)
		}
	}
	if in.NodeLogging {
		// The vali component's valitail access secret (pkg/component/observability/logging/vali).
		if err := gardenerutils.NewShootAccessSecret("valitail", cluster.Name).
			WithServiceAccountName(valiconstants.ValitailTokenSecretName).
			WithTokenExpirationDuration("720h").
			WithTargetSecret(valiconstants.ValitailTokenSecretName, metav1.NamespaceSystem).
			Reconcile(ctx, seedClient); err != nil {
			return nil, err
		}
	}
	objects, err := dumpObjects(ctx, seedClient, cluster.Name, skip, "Secret", "ManagedResource")
	if err != nil {
		return nil, err
	}
	return renderResult{Seed: append(deployed, objects...)}, nil
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
		networks.CoreDNS = netIP(in.ClusterDNSAddress)
	}
	const apiPrefix = "https://api."
	if !strings.HasPrefix(in.APIServerURL, apiPrefix) {
		return nil, fmt.Errorf("apiServerURL %q: gardenlet only renders https://api.<internal cluster domain>", in.APIServerURL)
	}

	s := &shootpkg.Shoot{
		SeedNamespace:         namespace,
		KubernetesVersion:     version,
		InternalClusterDomain: strings.TrimPrefix(in.APIServerURL, apiPrefix),
		CloudProfile:          cloudProfile,
		Purpose:               v1beta1helper.GetPurpose(shoot),
		NodeLocalDNSEnabled:   v1beta1helper.IsNodeLocalDNSEnabled(shoot.Spec.SystemComponents),
		Networks:              networks,
		Components:            &shootpkg.Components{Extensions: &shootpkg.Extensions{}},
	}
	s.SetInfo(shoot)
	// As the shoot builder (pkg/gardenlet/operation/shoot) derives them from the annotation.
	s.CloudConfigExecutionMaxDelaySeconds = 300
	if v, ok := shoot.Annotations[v1beta1constants.AnnotationShootCloudConfigExecutionMaxDelaySeconds]; ok {
		seconds, err := strconv.Atoi(v)
		if err != nil {
			return nil, err
		}
		if seconds <= 1800 {
			s.CloudConfigExecutionMaxDelaySeconds = seconds
		}
	}
	s.OSCSyncJitterPeriod = &metav1.Duration{Duration: time.Duration(s.CloudConfigExecutionMaxDelaySeconds) * time.Second}

	sd := &seedpkg.Seed{}
	sd.SetInfo(seed)

	// Node logging as gardenlet's configuration decides it: logging on, Vali on, and this shoot's
	// purpose among the node-logging purposes.
	logging := &gardenletconfig.Logging{Enabled: ptr.To(in.NodeLogging), Vali: &gardenletconfig.Vali{Enabled: ptr.To(true)}}
	if in.NodeLogging {
		logging.ShootNodeLogging = &gardenletconfig.ShootNodeLogging{ShootPurposes: []core.ShootPurpose{core.ShootPurpose(s.Purpose)}}
	}
	op := &operation.Operation{
		Config:         &gardenletconfig.GardenletConfiguration{Logging: logging},
		Logger:         logr.Discard(),
		Seed:           sd,
		Shoot:          s,
		SeedClientSet:  kubernetesfake.NewClientSetBuilder().WithClient(seedClient).Build(),
		SecretsManager: secrets,
	}
	return &botanist.Botanist{Operation: op}, nil
}
