package main

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gardener/gardener/pkg/client/kubernetes"
	"github.com/gardener/gardener/pkg/utils/managedresources"
)

type registryInput struct {
	Objects []json.RawMessage `json:"objects"`
}

// registryOp serializes shoot objects as gardenlet's ManagedResource registry does: the data
// keys (`<kind>__<namespace>__<name>.yaml`) and bytes of a ManagedResource secret.
func registryOp(raw json.RawMessage) (any, error) {
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
	return managedresources.NewRegistry(kubernetes.ShootScheme, kubernetes.ShootCodec, kubernetes.ShootSerializer).AddAllAndSerialize(objects...)
}
