// The reference for the controller-manager's Helm chart: renders a ControllerDeployment's chart the
// way gardenlet v1.91 does (pkg/chartrenderer: Helm v3.14.3's loader, values, engine and install
// order), so test/charts can check that Gardener renders from our chart what `gardener-osc
// manifests` prints. Test tooling only.
//
//	chart-renderer --release NAME --namespace NS [--kube-version v1.34.4] < providerConfig.json
//
// stdin is the ControllerDeployment's providerConfig ({"chart": <base64 .tgz>, "values": {...}});
// stdout is a JSON array of {"name", "content"}, one per rendered manifest, in install order.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
)

type providerConfig struct {
	Chart  []byte                 `json:"chart"`
	Values map[string]interface{} `json:"values"`
}

type manifest struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

func run(release, namespace, kubeVersion string, in io.Reader, out io.Writer) error {
	raw, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	var config providerConfig
	if err := json.Unmarshal(raw, &config); err != nil {
		return fmt.Errorf("providerConfig: %w", err)
	}
	chart, err := loader.LoadArchive(bytes.NewReader(config.Chart))
	if err != nil {
		return fmt.Errorf("can't load chart from archive: %w", err)
	}
	valuesJSON, err := json.Marshal(config.Values)
	if err != nil {
		return err
	}
	values, err := chartutil.ReadValues(valuesJSON)
	if err != nil {
		return err
	}
	if err := chartutil.ProcessDependencies(chart, values); err != nil {
		return err
	}
	version, err := chartutil.ParseKubeVersion(kubeVersion)
	if err != nil {
		return err
	}
	caps := &chartutil.Capabilities{KubeVersion: *version}
	options := chartutil.ReleaseOptions{Name: release, Namespace: namespace, Revision: 1, IsInstall: true}
	toRender, err := chartutil.ToRenderValues(chart, values, options, caps)
	if err != nil {
		return err
	}
	files, err := (&engine.Engine{}).Render(chart, toRender)
	if err != nil {
		return err
	}
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") || strings.HasPrefix(path.Base(name), "_") {
			delete(files, name)
		}
	}
	_, sorted, err := releaseutil.SortManifests(files, chartutil.DefaultVersionSet, releaseutil.InstallOrder)
	if err != nil {
		return fmt.Errorf("failed to sort manifests: %w", err)
	}
	result := make([]manifest, 0, len(sorted))
	for _, m := range sorted {
		result = append(result, manifest{Name: m.Name, Content: m.Content})
	}
	return json.NewEncoder(out).Encode(result)
}

func main() {
	release := flag.String("release", "", "release name (gardenlet: the ControllerRegistration's name)")
	namespace := flag.String("namespace", "", "release namespace (gardenlet: extension-<ControllerInstallation>)")
	kubeVersion := flag.String("kube-version", "v1.34.4", "the seed's Kubernetes version")
	flag.Parse()
	if *release == "" || *namespace == "" {
		fmt.Fprintln(os.Stderr, "usage: chart-renderer --release NAME --namespace NS [--kube-version V] < providerConfig.json")
		os.Exit(2)
	}
	if err := run(*release, *namespace, *kubeVersion, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "chart-renderer: %v\n", err)
		os.Exit(1)
	}
}
