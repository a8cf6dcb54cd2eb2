package main

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	nodeagentvalidation "github.com/gardener/gardener/pkg/api/config/nodeagent/v1alpha1/validation"
	corevalidation "github.com/gardener/gardener/pkg/api/core/validation"
	extensionsvalidation "github.com/gardener/gardener/pkg/api/extensions/validation"
	nodeagentconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/nodeagent/v1alpha1"
	gardencore "github.com/gardener/gardener/pkg/apis/core"
	gardencoreinstall "github.com/gardener/gardener/pkg/apis/core/install"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
)

// strictScheme knows every kind the node configuration consists of: core and RBAC objects,
// OperatingSystemConfig, ManagedResource, NodeAgentConfiguration (since v1.137 only v1alpha1, in
// the pkg/apis module), and core.gardener.cloud for ControllerRegistration/-Deployment.
var strictScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(extensionsv1alpha1.AddToScheme(s))
	utilruntime.Must(resourcesv1alpha1.AddToScheme(s))
	utilruntime.Must(nodeagentconfigv1alpha1.AddToScheme(s))
	gardencoreinstall.Install(s)
	return s
}()

// Strict: an unknown or duplicate field is an error, as the API server's strict field validation.
var strictCodecs = serializer.NewCodecFactory(strictScheme, serializer.EnableStrict)

type validateInput struct {
	// Documents are YAML or JSON texts, one object each.
	Documents []string `json:"documents"`
}

type validateResult struct {
	Kind   string   `json:"kind"`
	Errors []string `json:"errors"`
}

func validateOp(raw json.RawMessage) (any, error) {
	var in validateInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	results := make([]validateResult, 0, len(in.Documents))
	for _, doc := range in.Documents {
		results = append(results, validateDocument([]byte(doc)))
	}
	return results, nil
}

func validateDocument(doc []byte) validateResult {
	obj, gvk, err := strictCodecs.UniversalDeserializer().Decode(doc, nil, nil)
	if err != nil {
		kind := ""
		if gvk != nil {
			kind = gvk.Kind
		}
		return validateResult{Kind: kind, Errors: []string{"decode: " + err.Error()}}
	}
	var errs field.ErrorList
	switch o := obj.(type) {
	case *extensionsv1alpha1.OperatingSystemConfig:
		errs = extensionsvalidation.ValidateOperatingSystemConfig(o)
	case *nodeagentconfigv1alpha1.NodeAgentConfiguration:
		// As the node agent loads its config file (gardener v1.150.0
		// cmd/gardener-node-agent/app/options.go): decoded with defaults, validated in v1alpha1
		// (there is no internal version any more).
		strictScheme.Default(o)
		errs = nodeagentvalidation.ValidateNodeAgentConfiguration(o)
	case *gardencorev1beta1.ControllerRegistration:
		// As gardener-apiserver: defaulted, converted to the internal version, validated.
		strictScheme.Default(o)
		internal := &gardencore.ControllerRegistration{}
		if err := strictScheme.Convert(o, internal, nil); err != nil {
			return validateResult{Kind: gvk.Kind, Errors: []string{"convert: " + err.Error()}}
		}
		errs = corevalidation.ValidateControllerRegistration(internal)
	case *gardencorev1beta1.ControllerDeployment:
		strictScheme.Default(o)
		internal := &gardencore.ControllerDeployment{}
		if err := strictScheme.Convert(o, internal, nil); err != nil {
			return validateResult{Kind: gvk.Kind, Errors: []string{"convert: " + err.Error()}}
		}
		errs = corevalidation.ValidateControllerDeployment(internal)
	case *resourcesv1alpha1.ManagedResource:
		errs = validateMeta(&o.ObjectMeta, true)
		for i, ref := range o.Spec.SecretRefs {
			if ref.Name == "" {
				errs = append(errs, field.Required(field.NewPath("spec", "secretRefs").Index(i).Child("name"), "must not be empty"))
			}
		}
	case *corev1.Secret:
		errs = append(validateMeta(&o.ObjectMeta, true), validateSecretData(o)...)
	case *corev1.ServiceAccount:
		errs = validateMeta(&o.ObjectMeta, true)
	case *rbacv1.Role:
		errs = validateRBACMeta(&o.ObjectMeta, true)
	case *rbacv1.RoleBinding:
		errs = append(validateRBACMeta(&o.ObjectMeta, true), validateRoleRef(o.RoleRef)...)
	case *rbacv1.ClusterRole:
		errs = validateRBACMeta(&o.ObjectMeta, false)
	case *rbacv1.ClusterRoleBinding:
		errs = append(validateRBACMeta(&o.ObjectMeta, false), validateRoleRef(o.RoleRef)...)
	default:
		return validateResult{Kind: gvk.Kind, Errors: []string{fmt.Sprintf("no validation known for %s", gvk)}}
	}
	return validateResult{Kind: gvk.Kind, Errors: errorStrings(errs)}
}

func errorStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
