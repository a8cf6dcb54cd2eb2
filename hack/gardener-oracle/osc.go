package main

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/client/kubernetes"
	"github.com/gardener/gardener/pkg/component/extensions/operatingsystemconfig/original/components/nodeagent"
	nodeagentv1alpha1 "github.com/gardener/gardener/pkg/nodeagent/apis/config/v1alpha1"
)

// The node agent's view of an osc.yaml: decoded as its OSC controller decodes the secret
// (pkg/nodeagent/controller/operatingsystemconfig, the universal deserializer of a scheme with
// the extensions API), and written as gardenlet writes it into the OSC secret (the codec of
// pkg/component/.../nodeagent: YAML, not strict, the two group versions).
var (
	oscScheme = func() *runtime.Scheme {
		s := runtime.NewScheme()
		utilruntime.Must(nodeagentv1alpha1.AddToScheme(s))
		utilruntime.Must(extensionsv1alpha1.AddToScheme(s))
		return s
	}()
	oscDecoder = serializer.NewCodecFactory(oscScheme).UniversalDeserializer()
	oscCodec   = func() runtime.Codec {
		ser := jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, oscScheme, oscScheme,
			jsonserializer.SerializerOptions{Yaml: true, Pretty: false, Strict: false})
		versions := schema.GroupVersions([]schema.GroupVersion{nodeagentv1alpha1.SchemeGroupVersion, extensionsv1alpha1.SchemeGroupVersion})
		return serializer.NewCodecFactory(oscScheme).CodecForVersions(ser, ser, versions, versions)
	}()
)

type roundTripInput struct {
	// Documents are the bytes of osc.yaml files (base64 in JSON: they need not be UTF-8).
	Documents [][]byte `json:"documents"`
}

type roundTripResult struct {
	YAML  *string `json:"yaml,omitempty"`
	Error string  `json:"error,omitempty"`
}

// roundTripOp decodes each document as the node agent decodes osc.yaml and writes it back as
// gardenlet would: what Go accepts and what it means (every zero value written out).
func roundTripOp(raw json.RawMessage) (interface{}, error) {
	var in roundTripInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	out := make([]roundTripResult, 0, len(in.Documents))
	for _, doc := range in.Documents {
		osc := &extensionsv1alpha1.OperatingSystemConfig{}
		if err := runtime.DecodeInto(oscDecoder, doc, osc); err != nil {
			out = append(out, roundTripResult{Error: err.Error()})
			continue
		}
		encoded, err := runtime.Encode(oscCodec, osc)
		if err != nil {
			out = append(out, roundTripResult{Error: "encode: " + err.Error()})
			continue
		}
		text := string(encoded)
		out = append(out, roundTripResult{YAML: &text})
	}
	return out, nil
}

type seedSecret struct {
	Name string            `json:"name"`
	Data map[string][]byte `json:"data"`
}

type oscSecretInput struct {
	OSC        json.RawMessage `json:"osc"`
	Secrets    []seedSecret    `json:"secrets"`
	SecretName string          `json:"secretName"`
	Pool       string          `json:"pool"`
}

// oscSecretOp runs gardenlet's OperatingSystemConfigSecret: the shoot secret with osc.yaml and
// its checksum, secret references resolved from the seed secrets given (a fake seed client).
func oscSecretOp(raw json.RawMessage) (interface{}, error) {
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
	secret, err := nodeagent.OperatingSystemConfigSecret(context.Background(), seed, osc, in.SecretName, in.Pool)
	if err != nil {
		return map[string]interface{}{"error": err.Error()}, nil
	}
	return map[string]interface{}{"secret": secret}, nil
}
