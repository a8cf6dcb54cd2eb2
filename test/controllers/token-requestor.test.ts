import type { V1Secret, V1ServiceAccount } from '@kubernetes/client-node';
import { expect } from 'chai';
import {
  renewAfterMs,
  renewDue,
  renewTime,
  type ServiceAccountChange,
  seedSecretPatch,
  serviceAccountChange,
  type TokenDecision,
  TokenRequestorConfigError,
  type TokenRequestSpec,
  targetChange,
  tokenDecision,
  tokenExpirationSeconds,
  tokenRequestSpec,
} from '../../controllers/token-requestor/index.js';
import { FakeClock } from '../../runtime/clock.js';

const H = 3600 * 1000;

// Upstream: gardener v1.91.4 pkg/controller/tokenrequestor/reconciler.go.
describe('token-requestor: expiry and renew timestamp', () => {
  it('takes the expiry from the annotation: default 12h, never below the API minimum of 600 s', () => {
    expect(tokenExpirationSeconds(undefined)).to.equal(43_200);
    expect(tokenExpirationSeconds('')).to.equal(43_200);
    expect(tokenExpirationSeconds('720h')).to.equal(2_592_000);
    expect(tokenExpirationSeconds('1h30m')).to.equal(5_400);
    expect(tokenExpirationSeconds('10m0.9s')).to.equal(600);
    expect(tokenExpirationSeconds('5m')).to.equal(600);
    expect(tokenExpirationSeconds('0s')).to.equal(600);
    expect(tokenExpirationSeconds('-1h')).to.equal(600);
    expect(() => tokenExpirationSeconds('thirty days')).to.throw(/invalid duration/);
  });

  it('renews after 80 % of min(lifetime, 24 h), plus GRM one-sided jitter of up to 5 %', () => {
    expect(renewAfterMs(720 * H, () => 0)).to.equal(69_120_000);
    expect(renewAfterMs(720 * H, () => 0.999999)).to.be.closeTo(0.84 * 24 * H, 1000);
    expect(renewAfterMs(12 * H, () => 0)).to.equal(34_560_000);
    expect(renewAfterMs(600_000, () => 0)).to.equal(480_000);
    expect(renewAfterMs(600_000, () => 0.5)).to.equal(492_000);
    expect(renewAfterMs(-5, () => 0.5)).to.equal(0);
    for (let i = 0; i < 200; i++) {
      const ms = renewAfterMs(10 * H);
      expect(ms)
        .to.be.at.least(8 * H)
        .and.below(8.4 * H);
    }
  });

  it('writes the renew timestamp as RFC3339 in whole seconds, from an injected clock', () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 0, 0, 0, 700));
    const t = renewTime(clock.now(), clock.now() + 720 * H, () => 0);
    expect(t.annotation).to.equal('2026-01-01T19:12:00Z');
    expect(t.at).to.equal(Date.UTC(2026, 0, 1, 19, 12, 0));
    expect(renewTime(clock.now(), clock.now() + 600_000, () => 0).annotation).to.equal(
      '2026-01-01T00:08:00Z',
    );
  });

  it('is due with no, an unparsable or a passed timestamp; else says how long to wait', () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(renewDue(undefined, now)).to.deep.equal({ due: true, reason: 'missing' });
    expect(renewDue('tomorrow', now)).to.deep.equal({ due: true, reason: 'unparsable' });
    expect(renewDue('2026-01-01T11:59:59Z', now)).to.deep.equal({ due: true, reason: 'passed' });
    expect(renewDue('2026-01-01T12:00:00Z', now)).to.deep.equal({ due: true, reason: 'passed' });
    expect(renewDue('2026-01-01T13:00:00+01:00', now)).to.deep.equal({ due: true, reason: 'passed' });
    expect(renewDue('2026-01-01T12:00:30Z', now)).to.deep.equal({
      due: false,
      inMs: 30_000,
      at: now + 30_000,
    });
  });
});

describe('token-requestor: what a seed secret asks for', () => {
  const secret = (annotations: Record<string, string>): V1Secret => ({
    metadata: { name: 'shoot-access-x', namespace: 'shoot--a--b', annotations },
  });
  const complete = {
    'serviceaccount.resources.gardener.cloud/name': 'gardener-node-agent',
    'serviceaccount.resources.gardener.cloud/namespace': 'kube-system',
    'serviceaccount.resources.gardener.cloud/token-expiration-duration': '720h',
    'token-requestor.resources.gardener.cloud/target-secret-name': 'gardener-node-agent',
    'token-requestor.resources.gardener.cloud/target-secret-namespace': 'kube-system',
  };

  it('decodes the annotations of shootAccessSecret()', () => {
    expect(tokenRequestSpec(secret(complete))).to.deep.equal({
      serviceAccountName: 'gardener-node-agent',
      serviceAccountNamespace: 'kube-system',
      serviceAccountLabels: {},
      expirationSeconds: 2_592_000,
      target: { name: 'gardener-node-agent', namespace: 'kube-system' },
      renewTimestamp: undefined,
    });
  });

  it('defaults the target namespace to the ServiceAccount namespace; no target means the seed secret', () => {
    const { 'token-requestor.resources.gardener.cloud/target-secret-namespace': _, ...noTargetNs } = complete;
    expect(tokenRequestSpec(secret(noTargetNs)).target).to.deep.equal({
      name: 'gardener-node-agent',
      namespace: 'kube-system',
    });
    const { 'token-requestor.resources.gardener.cloud/target-secret-name': __, ...noTarget } = noTargetNs;
    expect(tokenRequestSpec(secret(noTarget)).target).to.equal(undefined);
  });

  it('names the annotation that is missing or wrong', () => {
    const { 'serviceaccount.resources.gardener.cloud/name': _, ...noName } = complete;
    expect(() => tokenRequestSpec(secret(noName))).to.throw(
      TokenRequestorConfigError,
      /shoot--a--b\/shoot-access-x: annotation serviceaccount.resources.gardener.cloud\/name is missing/,
    );
    expect(() =>
      tokenRequestSpec(
        secret({ ...complete, 'serviceaccount.resources.gardener.cloud/token-expiration-duration': '30d' }),
      ),
    ).to.throw(/token-expiration-duration: time: invalid duration "30d"/);
    expect(() =>
      tokenRequestSpec(secret({ ...complete, 'serviceaccount.resources.gardener.cloud/labels': '{"a":1}' })),
    ).to.throw(/labels must be a JSON object of strings/);
    expect(
      tokenRequestSpec(secret({ ...complete, 'serviceaccount.resources.gardener.cloud/labels': '{"a":"b"}' }))
        .serviceAccountLabels,
    ).to.deep.equal({ a: 'b' });
  });
});

describe('token-requestor: what a reconcile does (decide)', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  const spec = (o: Partial<TokenRequestSpec> = {}): TokenRequestSpec => ({
    serviceAccountName: 'gardener-node-agent',
    serviceAccountNamespace: 'kube-system',
    serviceAccountLabels: {},
    expirationSeconds: 3600,
    target: { name: 'gardener-node-agent', namespace: 'kube-system' },
    renewTimestamp: '2026-01-01T13:00:00Z',
    ...o,
  });

  it('requests a token when due or when the written token is missing; else waits until the renew time', () => {
    const cases: [string, TokenRequestSpec, string | undefined, TokenDecision][] = [
      ['ahead, token there', spec(), 'dG9rZW4=', { action: 'wait', inMs: 3_600_000 }],
      [
        'ahead, token gone',
        spec(),
        undefined,
        { action: 'request', reason: 'no token yet, requesting one before the renew time' },
      ],
      [
        'passed',
        spec({ renewTimestamp: '2026-01-01T11:00:00Z' }),
        'dG9rZW4=',
        { action: 'request', reason: 'renew timestamp passed' },
      ],
      [
        'missing',
        spec({ renewTimestamp: undefined }),
        'dG9rZW4=',
        { action: 'request', reason: 'renew timestamp missing' },
      ],
      [
        'unparsable',
        spec({ renewTimestamp: 'soon' }),
        'dG9rZW4=',
        { action: 'request', reason: 'renew timestamp unparsable' },
      ],
    ];
    for (const [name, s, token, want] of cases)
      expect(tokenDecision(s, token, now), name).to.deep.equal(want);
  });

  it('creates the ServiceAccount without automount, adds missing labels, else leaves it', () => {
    const labelled = spec({ serviceAccountLabels: { a: 'b' } });
    const cases: [string, V1ServiceAccount | undefined, TokenRequestSpec, ServiceAccountChange][] = [
      [
        'missing',
        undefined,
        labelled,
        {
          action: 'create',
          body: {
            metadata: { name: 'gardener-node-agent', namespace: 'kube-system', labels: { a: 'b' } },
            automountServiceAccountToken: false,
          },
        },
      ],
      [
        'as wanted',
        { automountServiceAccountToken: false, metadata: { labels: { a: 'b', c: 'd' } } },
        labelled,
        { action: 'none' },
      ],
      [
        'automount on, label missing',
        { metadata: { labels: { c: 'd' } } },
        labelled,
        { action: 'patch', body: { automountServiceAccountToken: false, metadata: { labels: { a: 'b' } } } },
      ],
      [
        'automount on',
        { metadata: {} },
        spec(),
        { action: 'patch', body: { automountServiceAccountToken: false } },
      ],
    ];
    for (const [name, existing, s, want] of cases)
      expect(serviceAccountChange(existing, s), name).to.deep.equal(want);
  });

  it('creates a missing target Opaque, patches only data.token, leaves an equal token', () => {
    const target = { name: 't', namespace: 'kube-system' };
    expect(targetChange(undefined, target, 'bmV3')).to.deep.equal({
      action: 'create',
      body: { metadata: target, type: 'Opaque', data: { token: 'bmV3' } },
    });
    expect(targetChange({ data: { token: 'b2xk', other: 'eA==' } }, target, 'bmV3')).to.deep.equal({
      action: 'patch',
      body: { data: { token: 'bmV3' } },
    });
    expect(targetChange({ data: { token: 'bmV3' } }, target, 'bmV3')).to.deep.equal({ action: 'none' });
  });

  it('patches the seed secret: the renew timestamp; the token without a target; a stale token removed', () => {
    const renew = 'serviceaccount.resources.gardener.cloud/token-renew-timestamp';
    const annotations = { [renew]: '2026-01-01T12:48:00Z' };
    expect(seedSecretPatch({}, spec(), '2026-01-01T12:48:00Z', 'bmV3')).to.deep.equal({
      metadata: { annotations },
    });
    expect(
      seedSecretPatch({ data: { token: 'b2xk' } }, spec(), '2026-01-01T12:48:00Z', 'bmV3'),
    ).to.deep.equal({
      metadata: { annotations },
      data: { token: null },
    });
    expect(seedSecretPatch({}, spec({ target: undefined }), '2026-01-01T12:48:00Z', 'bmV3')).to.deep.equal({
      metadata: { annotations },
      data: { token: 'bmV3' },
    });
  });
});
