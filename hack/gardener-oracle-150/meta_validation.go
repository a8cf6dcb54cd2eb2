package main

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// What the API server checks of the plain Kubernetes objects in the node configuration (their
// kinds have no Gardener validation): object metadata, RBAC names, role refs, Secret data.

// validateMeta is the API server's generic ObjectMeta validation (names are DNS subdomains).
func validateMeta(meta *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	return apivalidation.ValidateObjectMeta(meta, namespaced, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
}

// validateRBACMeta: RBAC names are path segments (Kubernetes' ValidateRBACName), `:` allowed.
func validateRBACMeta(meta *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	return apivalidation.ValidateObjectMeta(meta, namespaced, path.ValidatePathSegmentName, field.NewPath("metadata"))
}

// validateSecretData checks a Secret's data keys and total size.
func validateSecretData(secret *corev1.Secret) field.ErrorList {
	var errs field.ErrorList
	total := 0
	for key, value := range secret.Data {
		for _, msg := range validation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(key), key, msg))
		}
		total += len(value)
	}
	if total > corev1.MaxSecretSize {
		errs = append(errs, field.TooLong(field.NewPath("data"), "", corev1.MaxSecretSize))
	}
	return errs
}

func validateRoleRef(ref rbacv1.RoleRef) field.ErrorList {
	var errs field.ErrorList
	if ref.Name == "" {
		errs = append(errs, field.Required(field.NewPath("roleRef", "name"), ""))
	}
	if ref.Kind != "Role" && ref.Kind != "ClusterRole" {
		errs = append(errs, field.NotSupported(field.NewPath("roleRef", "kind"), ref.Kind, []string{"Role", "ClusterRole"}))
	}
	return errs
}
