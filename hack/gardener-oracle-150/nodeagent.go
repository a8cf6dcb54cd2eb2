package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/spf13/afero"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	nodeagentconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/nodeagent/v1alpha1"
	"github.com/gardener/gardener/pkg/client/kubernetes"
	fakecontainerd "github.com/gardener/gardener/pkg/nodeagent/containerd/fake"
	oscreconciler "github.com/gardener/gardener/pkg/nodeagent/controller/operatingsystemconfig"
	fakedbus "github.com/gardener/gardener/pkg/nodeagent/dbus/fake"
	fakeregistry "github.com/gardener/gardener/pkg/nodeagent/registry/fake"
	"github.com/gardener/gardener/pkg/utils"
)

type nodeAgentInput struct {
	// Root is a real directory every path of the OSCs resolves under.
	Root string `json:"root"`
	// Images is a directory under Root (as a path inside Root) holding <filePathInImage> files:
	// upstream's fake extractor copies from there whatever the image.
	Images            string `json:"images"`
	NodeName          string `json:"nodeName"`
	HostName          string `json:"hostName"`
	KubernetesVersion string `json:"kubernetesVersion"`
	SecretName        string `json:"secretName"`
	// ContainerdDefaultConfig is what `containerd config default` prints; ContainerdVersion what
	// the running containerd reports (upstream's fake client).
	ContainerdDefaultConfig string `json:"containerdDefaultConfig"`
	ContainerdVersion       string `json:"containerdVersion"`
	// Path is the agent's PATH, which containerd's environment drop-in carries.
	Path  string          `json:"path"`
	Steps []nodeAgentStep `json:"steps"`
}

type nodeAgentStep struct {
	// OSC is the osc.yaml of the OSC secret, applied in this step.
	OSC []byte `json:"osc"`
}

type systemdAction struct {
	Action string   `json:"action"`
	Units  []string `json:"units"`
}

type nodeAgentStepResult struct {
	Actions           []systemdAction `json:"actions"`
	RestartsNodeAgent bool            `json:"restartsNodeAgent"`
	Error             string          `json:"error,omitempty"`
}

// Only what changes the node: the queries of the fake D-Bus (List, GetTriggeredBy, …) are left out.
var actionNames = map[fakedbus.Action]string{
	fakedbus.ActionDaemonReload: "daemon-reload",
	fakedbus.ActionDisable:      "disable",
	fakedbus.ActionEnable:       "enable",
	fakedbus.ActionRestart:      "restart",
	fakedbus.ActionStart:        "start",
	fakedbus.ActionStop:         "stop",
	fakedbus.ActionReboot:       "reboot",
}

// restartPasses bounds how often one step's agent restarts itself and resumes.
const restartPasses = 3

// nodeAgentOp runs upstream v1.150.0's node-agent OSC reconciler
// (pkg/nodeagent/controller/operatingsystemconfig) for each step's osc.yaml in turn, on a real
// directory (umask 022), with a fake client holding the OSC secret and the Node, upstream's fake
// D-Bus, fake containerd client and fake image extractor, and `containerd config default`
// answered by the input. When the reconciler restarts the agent (its context cancelled), the
// step goes on with a new reconciler, as the restarted process would: upstream resumes from its
// last-computed-osc-changes.yaml. The files stay in Root for the caller to read.
func nodeAgentOp(raw json.RawMessage) (any, error) {
	var in nodeAgentInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	version, err := semver.NewVersion(in.KubernetesVersion)
	if err != nil {
		return nil, fmt.Errorf("kubernetesVersion: %w", err)
	}
	// A node as its bootstrap leaves it: the agent's scratch directory and systemd's unit
	// directory exist (upstream writes unit files without creating their directory).
	for _, dir := range []string{nodeagentconfigv1alpha1.TempDir, "/etc/systemd/system"} {
		if err := os.MkdirAll(filepath.Join(in.Root, dir), 0o755); err != nil {
			return nil, err
		}
	}
	// The environment drop-in takes the agent's PATH from the process (containerd.go).
	defer os.Setenv("PATH", os.Getenv("PATH"))
	if err := os.Setenv("PATH", in.Path); err != nil {
		return nil, err
	}
	oscreconciler.Exec = func(context.Context, string, ...string) ([]byte, error) {
		return []byte(in.ContainerdDefaultConfig), nil
	}

	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: in.NodeName}}
	shoot := fakeclient.NewClientBuilder().WithScheme(kubernetes.ShootScheme).WithObjects(node).Build()
	dbus := fakedbus.New()
	containerd := fakecontainerd.NewClient()
	containerd.SetFakeContainerdVersion(in.ContainerdVersion)
	fs := afero.Afero{Fs: afero.NewBasePathFs(afero.NewOsFs(), in.Root)}
	restarted := false
	newReconciler := func() *oscreconciler.Reconciler {
		return &oscreconciler.Reconciler{
			APIReader:        shoot,
			Client:           shoot,
			LeaseClient:      shoot,
			ContainerdClient: containerd,
			Config: nodeagentconfigv1alpha1.OperatingSystemConfigControllerConfig{
				SyncPeriod:        &metav1.Duration{Duration: 10 * time.Minute},
				SecretName:        in.SecretName,
				KubernetesVersion: version,
			},
			Clock:         clock.RealClock{},
			ConfigDir:     nodeagentconfigv1alpha1.BaseDir,
			Recorder:      events.NewFakeRecorder(100),
			DBus:          dbus,
			FS:            fs,
			Extractor:     fakeregistry.NewExtractor(fs, in.Images),
			CancelContext: func() { restarted = true },
			HostName:      in.HostName,
			NodeName:      in.NodeName,
		}
	}

	key := types.NamespacedName{Namespace: metav1.NamespaceSystem, Name: in.SecretName}
	results := make([]nodeAgentStepResult, 0, len(in.Steps))
	for _, step := range in.Steps {
		if err := putOSCSecret(ctx, shoot, key, step.OSC); err != nil {
			return nil, err
		}
		before := len(dbus.Actions)
		result := nodeAgentStepResult{Actions: []systemdAction{}}
		for pass := 0; pass < restartPasses; pass++ {
			restarted = false
			if _, err := newReconciler().Reconcile(ctx, reconcile.Request{NamespacedName: key}); err != nil {
				result.Error = err.Error()
				break
			}
			if !restarted {
				break
			}
			result.RestartsNodeAgent = true
		}
		for _, a := range dbus.Actions[before:] {
			if name, ok := actionNames[a.Action]; ok {
				result.Actions = append(result.Actions, systemdAction{Action: name, Units: a.UnitNames})
			}
		}
		results = append(results, result)
	}
	return results, nil
}

// putOSCSecret writes the OSC secret as gardenlet would: osc.yaml and its checksum annotation.
func putOSCSecret(ctx context.Context, c client.Client, key types.NamespacedName, osc []byte) error {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}
	err := c.Get(ctx, key, secret)
	exists := err == nil
	if err != nil && client.IgnoreNotFound(err) != nil {
		return err
	}
	secret.Annotations = map[string]string{nodeagentconfigv1alpha1.AnnotationKeyChecksumDownloadedOperatingSystemConfig: utils.ComputeSHA256Hex(osc)}
	secret.Data = map[string][]byte{nodeagentconfigv1alpha1.DataKeyOperatingSystemConfig: osc}
	if exists {
		return c.Update(ctx, secret)
	}
	return c.Create(ctx, secret)
}
