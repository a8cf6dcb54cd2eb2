/** The v1.150.0 image vector: upstream's defaults, the values' images in their place. */
import { expect } from 'chai';
import { DEFAULT_IMAGES_V150, imagesV150 } from '../../../charts/values/images-v150.js';
import { DEFAULT_IMAGES } from '../../../charts/values/render-values.js';

describe('v1.150.0 image vector', () => {
  it("tags the node agent with gardenlet's gitVersion and takes v1.150.0's pause image", () => {
    const images = imagesV150({});
    expect(images.nodeAgent).to.equal(
      'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.150.0',
    );
    expect(images.pauseContainer).to.equal('registry.k8s.io/pause:3.10');
    expect(images.openTelemetryCollector).to.match(/\/opentelemetry-collector:v0\.0\.1$/);
    // the v1.91.4 contract keeps its own vector
    expect(DEFAULT_IMAGES.nodeAgent).to.match(/:v1\.91\.4$/);
  });

  it('puts the images the values name in place of the defaults, one by one', () => {
    const images = imagesV150({ images: { pauseContainer: 'registry.example.com/pause:3.10' } });
    expect(images).to.deep.equal({
      ...DEFAULT_IMAGES_V150,
      pauseContainer: 'registry.example.com/pause:3.10',
    });
  });
});
