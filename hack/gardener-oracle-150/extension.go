package main

import (
	"context"
	"encoding/json"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	"github.com/gardener/gardener/pkg/client/kubernetes"
)

// osExtensionStatus is what an OS extension writes into an OSC's status after reconciling it. In
// v1.150 the status has no command, units or files any more (removed in v1.97.0, #9885).
type osExtensionStatus struct {
	CloudConfig    []byte                    `json:"cloudConfig"`
	ExtensionUnits []extensionsv1alpha1.Unit `json:"extensionUnits"`
	ExtensionFiles []extensionsv1alpha1.File `json:"extensionFiles"`
}

const osExtensionSecretPrefix = "osc-result-"

// runOSExtension plays the OS extension for every OSC gardenlet deployed: it writes the user data
// secret and a successful status (the operation annotation removed, the generation observed),
// which is what gardenlet's Wait and its ManagedResource read.
func runOSExtension(ctx context.Context, c client.Client, namespace string, now time.Time, statuses map[string]osExtensionStatus) error {
	list := &extensionsv1alpha1.OperatingSystemConfigList{}
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return err
	}
	for i := range list.Items {
		osc := &list.Items[i]
		st := statuses[osc.Name]
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: osExtensionSecretPrefix + osc.Name, Namespace: namespace},
			Data:       map[string][]byte{extensionsv1alpha1.OperatingSystemConfigSecretDataKey: st.CloudConfig},
		}
		if err := c.Create(ctx, secret); err != nil {
			return err
		}
		delete(osc.Annotations, v1beta1constants.GardenerOperation)
		osc.Status.ObservedGeneration = osc.Generation
		osc.Status.LastOperation = &gardencorev1beta1.LastOperation{
			Description:    "reconciled",
			LastUpdateTime: metav1.NewTime(now.Add(time.Second)),
			Progress:       100,
			State:          gardencorev1beta1.LastOperationStateSucceeded,
			Type:           gardencorev1beta1.LastOperationTypeReconcile,
		}
		osc.Status.CloudConfig = &extensionsv1alpha1.CloudConfig{SecretRef: corev1.SecretReference{Name: secret.Name, Namespace: namespace}}
		osc.Status.ExtensionUnits = st.ExtensionUnits
		osc.Status.ExtensionFiles = st.ExtensionFiles
		if err := c.Update(ctx, osc); err != nil {
			return err
		}
	}
	return nil
}

// listed is what dumpObjects lists: the node configuration's kinds in the seed.
var listed = map[string]func() client.ObjectList{
	"Secret":                func() client.ObjectList { return &corev1.SecretList{} },
	"OperatingSystemConfig": func() client.ObjectList { return &extensionsv1alpha1.OperatingSystemConfigList{} },
	"ManagedResource":       func() client.ObjectList { return &resourcesv1alpha1.ManagedResourceList{} },
}

// dumpObjects returns the objects of the given kinds in the namespace as JSON with apiVersion and
// kind, but the secrets that were inputs (skip).
func dumpObjects(ctx context.Context, c client.Client, namespace string, skip func(secretName string) bool, kinds ...string) ([]json.RawMessage, error) {
	var out []json.RawMessage
	for _, kind := range kinds {
		list := listed[kind]()
		if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
			return nil, err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			obj := item.(client.Object)
			if kind == "Secret" && skip(obj.GetName()) {
				continue
			}
			gvk, err := apiutil.GVKForObject(obj, kubernetes.SeedScheme)
			if err != nil {
				return nil, err
			}
			obj.GetObjectKind().SetGroupVersionKind(gvk)
			raw, err := json.Marshal(obj)
			if err != nil {
				return nil, err
			}
			out = append(out, raw)
		}
	}
	return out, nil
}
