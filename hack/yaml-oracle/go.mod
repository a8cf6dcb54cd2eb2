// The reference for api/yaml: Go's sigs.k8s.io/yaml, the library every Gardener component writes
// YAML with. test/api/yaml-oracle.test.ts compares our emitter with it on generated values.
module gardener-osc/hack/yaml-oracle

go 1.22

require sigs.k8s.io/yaml v1.4.0
