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
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/gardener/gardener/pkg/client/kubernetes"
	"github.com/gardener/gardener/pkg/nodeagent/apis/config"
	nodeagentv1alpha1 "github.com/gardener/gardener/pkg/nodeagent/apis/config/v1alpha1"
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
	Images            string          `json:"images"`
	NodeName          string          `json:"nodeName"`
	KubernetesVersion string          `json:"kubernetesVersion"`
	SecretName        string          `json:"secretName"`
	Steps             []nodeAgentStep `json:"steps"`
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

var actionNames = map[fakedbus.Action]string{
	fakedbus.ActionDaemonReload: "daemon-reload",
	fakedbus.ActionDisable:      "disable",
	fakedbus.ActionEnable:       "enable",
	fakedbus.ActionRestart:      "restart",
	fakedbus.ActionStart:        "start",
	fakedbus.ActionStop:         "stop",
	fakedbus.ActionReboot:       "reboot",
}

// nodeAgentOp runs upstream's node-agent OSC reconciler for each step's osc.yaml in turn, on a
// real directory (umask 022, as set in main), with a fake client holding the OSC secret and the
// Node, upstream's fake D-Bus and upstream's fake image extractor. It returns the systemd calls of
// each step; the files stay in Root for the caller to read.
func nodeAgentOp(raw json.RawMessage) (interface{}, error) {
	var in nodeAgentInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	version, err := semver.NewVersion(in.KubernetesVersion)
	if err != nil {
		return nil, fmt.Errorf("kubernetesVersion: %w", err)
	}
	// A node as gardener-node-agent bootstrap leaves it: the agent's scratch directory and systemd's
	// unit directory exist (upstream writes unit files without creating their directory).
	for _, dir := range []string{nodeagentv1alpha1.TempDir, "/etc/systemd/system"} {
		if err := os.MkdirAll(filepath.Join(in.Root, dir), 0o755); err != nil {
			return nil, err
		}
	}

	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: in.NodeName}}
	shoot := fakeclient.NewClientBuilder().WithScheme(kubernetes.ShootScheme).WithObjects(node).Build()
	dbus := fakedbus.New()
	fs := afero.Afero{Fs: afero.NewBasePathFs(afero.NewOsFs(), in.Root)}
	restarted := false
	r := &oscreconciler.Reconciler{
		Client: nodeKindClient{shoot},
		Config: config.OperatingSystemConfigControllerConfig{
			SyncPeriod:        &metav1.Duration{Duration: 10 * time.Minute},
			SecretName:        in.SecretName,
			KubernetesVersion: version,
		},
		Recorder:      &record.FakeRecorder{},
		DBus:          dbus,
		FS:            fs,
		Extractor:     fakeregistry.NewExtractor(fs, in.Images),
		CancelContext: func() { restarted = true },
		NodeName:      in.NodeName,
	}

	key := types.NamespacedName{Namespace: metav1.NamespaceSystem, Name: in.SecretName}
	results := make([]nodeAgentStepResult, 0, len(in.Steps))
	for _, step := range in.Steps {
		if err := putOSCSecret(ctx, shoot, key, step.OSC); err != nil {
			return nil, err
		}
		before := len(dbus.Actions)
		restarted = false
		_, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: key})
		result := nodeAgentStepResult{Actions: []systemdAction{}, RestartsNodeAgent: restarted}
		for _, a := range dbus.Actions[before:] {
			result.Actions = append(result.Actions, systemdAction{Action: actionNames[a.Action], Units: a.UnitNames})
		}
		if err != nil {
			result.Error = err.Error()
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
	secret.Annotations = map[string]string{nodeagentv1alpha1.AnnotationKeyChecksumDownloadedOperatingSystemConfig: utils.ComputeSHA256Hex(osc)}
	secret.Data = map[string][]byte{nodeagentv1alpha1.DataKeyOperatingSystemConfig: osc}
	if exists {
		return c.Update(ctx, secret)
	}
	return c.Create(ctx, secret)
}

// nodeKindClient gives the Node the reconciler patches its kind back: controller-runtime's fake
// client drops the TypeMeta of a PartialObjectMetadata on Get, which a real API server never sees.
type nodeKindClient struct{ client.Client }

func (c nodeKindClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if p, ok := obj.(*metav1.PartialObjectMetadata); ok && p.Kind == "" {
		p.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Node"))
	}
	return c.Client.Patch(ctx, obj, patch, opts...)
}
