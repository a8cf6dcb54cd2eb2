package main

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	nodeagentconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/nodeagent/v1alpha1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/nodeagent"
)

// gardenletOSCCodec is the codec gardenlet writes osc.yaml with: the unexported `codec` of gardener
// v1.150.0 pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/component.go
// (YAML, not strict, the node-agent and extensions group versions).
var gardenletOSCCodec = func() runtime.Codec {
	s := runtime.NewScheme()
	utilruntime.Must(nodeagentconfigv1alpha1.AddToScheme(s))
	utilruntime.Must(extensionsv1alpha1.AddToScheme(s))
	ser := jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, s, s,
		jsonserializer.SerializerOptions{Yaml: true, Pretty: false, Strict: false})
	versions := schema.GroupVersions([]schema.GroupVersion{nodeagentconfigv1alpha1.SchemeGroupVersion, extensionsv1alpha1.SchemeGroupVersion})
	return serializer.NewCodecFactory(s).CodecForVersions(ser, ser, versions, versions)
}()

type roundTripInput struct {
	// Documents are the bytes of osc.yaml files (base64 in JSON: they need not be UTF-8).
	Documents [][]byte `json:"documents"`
}

type roundTripResult struct {
	YAML  *string `json:"yaml,omitempty"`
	Error string  `json:"error,omitempty"`
}

// roundTripOp decodes each document as the v1.150 node agent decodes osc.yaml (nodeagent.Codec,
// gardener v1.150.0 pkg/nodeagent/controller/operatingsystemconfig/changes.go extractOSCFromSecret)
// and writes it back as gardenlet would: what Go accepts and what it means.
func roundTripOp(raw json.RawMessage) (any, error) {
	var in roundTripInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	out := make([]roundTripResult, 0, len(in.Documents))
	for _, doc := range in.Documents {
		osc := &extensionsv1alpha1.OperatingSystemConfig{}
		if err := runtime.DecodeInto(nodeagent.Codec, doc, osc); err != nil {
			out = append(out, roundTripResult{Error: err.Error()})
			continue
		}
		encoded, err := runtime.Encode(gardenletOSCCodec, osc)
		if err != nil {
			out = append(out, roundTripResult{Error: "encode: " + err.Error()})
			continue
		}
		text := string(encoded)
		out = append(out, roundTripResult{YAML: &text})
	}
	return out, nil
}
