// The reference for api/toml: go-toml v1.9.5, the TOML library gardener v1.150.0's node agent
// rewrites containerd's config.toml with. test/api/toml-oracle.test.ts compares our codec with it.
module gardener-osc/hack/toml-oracle

go 1.22

require github.com/pelletier/go-toml v1.9.5
