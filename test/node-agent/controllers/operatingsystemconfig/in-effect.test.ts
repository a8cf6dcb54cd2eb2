/**
 * In effect, not only written: after an apply the agent compares what runs (the kubelet's configz,
 * /proc/sys) with what it rendered; a field that differs fails the apply, named. The real checks
 * ask a kubelet and a kernel; here fakes stand in for them (the real node tests run the real ones).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../../../api/index.js';
import { MemorySystemd } from '../../../../hack/node-agent-doubles/memory-systemd.js';
import type { AgentOptions } from '../../../../node-agent/agent/agent-options.js';
import { IN_EFFECT_CHECKS_ENV, inEffect } from '../../../../node-agent/agent/in-effect-checks.js';
import {
  ConfigzNotJudged,
  ConfigzNotPermitted,
  configzOverHttps,
  configzThroughApiServer,
} from '../../../../node-agent/controllers/operatingsystemconfig/in-effect/configz-fetch.js';
import type { InEffectCheck } from '../../../../node-agent/controllers/operatingsystemconfig/in-effect/in-effect-check.js';
import { kubeletConfigzCheck } from '../../../../node-agent/controllers/operatingsystemconfig/in-effect/kubelet-configz.js';
import { renderedFieldsDiffer } from '../../../../node-agent/controllers/operatingsystemconfig/in-effect/rendered-fields.js';
import {
  renderedSysctls,
  sysctlReadback,
} from '../../../../node-agent/controllers/operatingsystemconfig/in-effect/sysctl-readback.js';
import { lastErrorOf } from '../../../../node-agent/controllers/operatingsystemconfig/in-effect/unit-journal-reason.js';
import { verifyApply } from '../../../../node-agent/controllers/operatingsystemconfig/verify-apply.js';
import { KubeStatusError } from '../../../../runtime/kube/kube-http.js';
import { type ConfigzServer, startConfigzServer } from '../../../support/configz-server.js';

function oscWith(files: Record<string, string>): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'osc' },
    spec: {
      type: 'gardenlinux',
      purpose: 'reconcile',
      files: Object.entries(files).map(([path, data]) => ({
        path,
        content: { inline: { encoding: '', data } },
      })),
    },
  } as unknown as OperatingSystemConfig;
}

const KUBELET = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
maxPods: 111
cgroupsPerQOS: false
enforceNodeAllocatable: []
containerRuntimeEndpoint: ""
nodeStatusUpdateFrequency: 0s
evictionHard:
  memory.available: 5%
kubeReserved:
  cpu: 80m
clusterDNS:
- 100.64.0.10
memorySwap: {}
`;

describe('node agent: what an apply put in effect', () => {
  const signal = new AbortController().signal;

  describe('rendered fields against running ones', () => {
    it('compares the fields the rendered configuration holds, nested, lists whole', () => {
      expect(
        renderedFieldsDiffer(
          { kind: 'K', maxPods: 111, evictionHard: { 'memory.available': '5%' }, clusterDNS: ['a'] },
          {
            kind: 'Other',
            maxPods: 110,
            evictionHard: { 'memory.available': '10%' },
            clusterDNS: ['a', 'b'],
            extra: 1,
          },
        ),
      ).to.deep.equal([
        { field: 'maxPods', rendered: '111', running: '110' },
        { field: 'evictionHard.memory.available', rendered: '"5%"', running: '"10%"' },
        { field: 'clusterDNS', rendered: '["a"]', running: '["a","b"]' },
      ]);
    });

    it('compares list items whatever the order of their keys (configz writes Go field order)', () => {
      expect(
        renderedFieldsDiffer(
          { registerWithTaints: [{ effect: 'NoSchedule', key: 'k' }] },
          { registerWithTaints: [{ key: 'k', effect: 'NoSchedule' }] },
        ),
      ).to.deep.equal([]);
    });

    it("skips a rendered zero value (Go's unset, which the component defaults); an empty list is kept", () => {
      expect(
        renderedFieldsDiffer(
          { a: 0, b: '', c: '0s', d: {}, e: [], f: false },
          { a: 5, b: 'unix:///x', c: '10s', d: { x: 1 }, f: false },
        ),
      ).to.deep.equal([]);
      expect(renderedFieldsDiffer({ e: [] }, { e: ['pods'] })).to.deep.equal([
        { field: 'e', rendered: '[]', running: '["pods"]' },
      ]);
      expect(renderedFieldsDiffer({ f: false }, { f: true })).to.deep.equal([
        { field: 'f', rendered: 'false', running: 'true' },
      ]);
    });
  });

  describe('the kubelet configz', () => {
    const osc = oscWith({ '/var/lib/kubelet/config/kubelet': KUBELET });
    const running = {
      maxPods: 111,
      cgroupsPerQOS: false,
      containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
      nodeStatusUpdateFrequency: '10s',
      evictionHard: { 'memory.available': '5%', 'nodefs.available': '10%' },
      kubeReserved: { cpu: '80m' },
      clusterDNS: ['100.64.0.10'],
      memorySwap: {},
    };

    it('in effect: the kubelet serves what was rendered (defaults and flags on top)', async () => {
      let port = 0;
      const check = kubeletConfigzCheck(async (p) => {
        port = p;
        return running;
      });
      expect(await check.check(osc, signal)).to.deep.equal([]);
      expect(port).to.equal(10250);
    });

    it('names the field the kubelet runs otherwise', async () => {
      const check = kubeletConfigzCheck(async () => ({ ...running, maxPods: 110 }));
      expect(await check.check(osc, signal)).to.deep.equal([
        { field: 'maxPods', rendered: '111', running: '110' },
      ]);
    });

    it('a kubelet that refuses the agent is not judged; one that cannot be asked fails', async () => {
      const refused = kubeletConfigzCheck(() => Promise.reject(new ConfigzNotPermitted('403')));
      expect(await refused.check(osc, signal)).to.deep.equal([]);
      const down = kubeletConfigzCheck(() =>
        Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:10250')),
      );
      await down.check(osc, signal).then(
        () => expect.fail('resolved'),
        (e: Error) => expect(e.message).to.contain('ECONNREFUSED'),
      );
    });

    it('a refusal or an API server that cannot be asked is not judged', async () => {
      for (const e of [new ConfigzNotPermitted('403'), new ConfigzNotJudged('503 from the API server')]) {
        const check = kubeletConfigzCheck(() => Promise.reject(e));
        expect(await check.check(osc, signal), e.message).to.deep.equal([]);
      }
    });

    it('an OSC without a kubelet configuration has nothing to compare', async () => {
      const check = kubeletConfigzCheck(() => expect.fail('asked the kubelet'));
      expect(await check.check(oscWith({}), signal)).to.deep.equal([]);
    });
  });

  describe('asking the kubelet on the loopback with the shared token', () => {
    const osc = oscWith({ '/var/lib/kubelet/config/kubelet': KUBELET });
    let kubelet: ConfigzServer;
    let dir: string;
    let tokenFile: string;
    before(async () => {
      kubelet = await startConfigzServer({ maxPods: 111 });
      dir = mkdtempSync(join(tmpdir(), 'configz-token-'));
      tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, 'shared-token\n');
    });
    after(async () => {
      await kubelet.close();
      rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(() => {
      kubelet.status = 200;
      kubelet.body = JSON.stringify({ kubeletconfig: { maxPods: 111 } });
    });
    const fetch = () => configzOverHttps(tokenFile, 5_000)(kubelet.port, signal);

    it("sends the token and returns the kubelet's kubeletconfig", async () => {
      expect(await fetch()).to.deep.equal({ maxPods: 111 });
      expect(kubelet.requests.at(-1)).to.deep.equal({
        path: '/configz',
        authorization: 'Bearer shared-token',
      });
    });

    it('a kubelet that refuses the token (401, 403) is a refusal, not a failure', async () => {
      for (const status of [401, 403]) {
        kubelet.status = status;
        kubelet.body = 'Forbidden (user=system:serviceaccount:kube-system:gardener-node-agent)';
        const error = await fetch().then(
          () => expect.fail('resolved'),
          (e: Error) => e,
        );
        expect(error, String(status)).to.be.instanceOf(ConfigzNotPermitted);
        expect(await kubeletConfigzCheck(() => fetch()).check(osc, signal)).to.deep.equal([]);
      }
    });

    it('any other answer fails the check, with the status', async () => {
      kubelet.status = 500;
      kubelet.body = 'boom';
      await kubeletConfigzCheck(() => fetch())
        .check(osc, signal)
        .then(
          () => expect.fail('resolved'),
          (e: Error) => {
            expect(e).not.to.be.instanceOf(ConfigzNotJudged);
            expect(e.message).to.contain('answered /configz with 500: boom');
          },
        );
    });
  });

  describe("asking through the API server's node proxy with the per-node identity", () => {
    const osc = oscWith({ '/var/lib/kubelet/config/kubelet': KUBELET });
    type Get = Parameters<typeof configzThroughApiServer>[0]['get'];
    const answering =
      (body: string, paths: string[] = []): Get =>
      async (req) => {
        paths.push(req.path);
        return { statusCode: 200, body: { text: async () => body } } as Awaited<ReturnType<Get>>;
      };
    const failing =
      (e: Error): Get =>
      async () => {
        throw e;
      };

    it("asks the proxy of its own Node and returns the kubelet's kubeletconfig", async () => {
      const paths: string[] = [];
      const fetch = configzThroughApiServer(
        { get: answering(JSON.stringify({ kubeletconfig: { maxPods: 111 } }), paths) },
        () => 'node-a',
      );
      expect(await fetch(10250, signal)).to.deep.equal({ maxPods: 111 });
      expect(paths).to.deep.equal(['/api/v1/nodes/node-a/proxy/configz']);
    });

    it('a refusal is not permitted; an API server that cannot be asked, or no Node yet, is not judged', async () => {
      const cases: [Get, () => string | undefined, typeof ConfigzNotJudged][] = [
        [
          failing(new KubeStatusError(403, 'Forbidden', 'nodes "node-a" is forbidden')),
          () => 'node-a',
          ConfigzNotPermitted,
        ],
        [
          failing(new KubeStatusError(503, 'ServiceUnavailable', 'error trying to reach service')),
          () => 'node-a',
          ConfigzNotJudged,
        ],
        [failing(new Error('connect ECONNREFUSED 10.0.0.1:443')), () => 'node-a', ConfigzNotJudged],
        [answering('{}'), () => undefined, ConfigzNotJudged],
      ];
      for (const [get, node, kind] of cases) {
        const error = await configzThroughApiServer({ get }, node)(10250, signal).then(
          () => expect.fail('resolved'),
          (e: Error) => e,
        );
        expect(error, error.message).to.be.instanceOf(kind);
        expect(
          await kubeletConfigzCheck(configzThroughApiServer({ get }, node)).check(osc, signal),
        ).to.deep.equal([]);
      }
    });

    it("the kubelet's own answer is judged: a configz without kubeletconfig fails", async () => {
      const fetch = configzThroughApiServer({ get: answering('{"other":1}') }, () => 'node-a');
      await fetch(10250, signal).then(
        () => expect.fail('resolved'),
        (e: Error) => expect(e.message).to.contain('no kubeletconfig'),
      );
    });
  });

  describe('sysctls read back from /proc/sys', () => {
    let root: string;
    before(() => {
      root = mkdtempSync(join(tmpdir(), 'in-effect-'));
      mkdirSync(join(root, 'proc/sys/vm'), { recursive: true });
      mkdirSync(join(root, 'proc/sys/net/ipv4'), { recursive: true });
      writeFileSync(join(root, 'proc/sys/vm/max_map_count'), '65530\n');
      writeFileSync(join(root, 'proc/sys/vm/overcommit_memory'), '1\n');
      writeFileSync(join(root, 'proc/sys/net/ipv4/tcp_rmem'), '4096\t12582912\t16777216\n');
    });
    after(() => rmSync(root, { recursive: true, force: true }));

    const osc = oscWith({
      '/etc/sysctl.d/99-k8s-general.conf':
        '# comment\nvm.max_map_count = 135217728\nvm/overcommit_memory = 1\nnet.ipv4.tcp_rmem = 4096 12582912 16777216\n-fs.not_here = 3\n',
    });

    it('parses the rendered keys as systemd-sysctl does', () => {
      expect([...renderedSysctls(osc)]).to.deep.equal([
        ['vm.max_map_count', '135217728'],
        ['vm/overcommit_memory', '1'],
        ['net.ipv4.tcp_rmem', '4096 12582912 16777216'],
        ['fs.not_here', '3'],
      ]);
    });

    it('names a key the kernel holds otherwise; a key the kernel lacks is skipped', async () => {
      expect(await sysctlReadback(root).check(osc, signal)).to.deep.equal([
        { field: 'vm.max_map_count', rendered: '135217728', running: '65530' },
      ]);
    });
  });

  describe('the verdict', () => {
    const systemd = new MemorySystemd();
    before(() => systemd.restart('kubelet.service'));
    const osc = oscWith({});
    const fake = (
      name: string,
      result: Awaited<ReturnType<InEffectCheck['check']>> | Error,
    ): InEffectCheck => ({
      name,
      check: () => (result instanceof Error ? Promise.reject(result) : Promise.resolve(result)),
    });

    it('a field not in effect fails the apply as NotInEffect, naming the field', async () => {
      const verdict = await verifyApply({
        units: ['kubelet.service'],
        systemd,
        probes: [],
        settleMs: 0,
        signal,
        inEffect: {
          osc,
          checks: [
            fake('kubelet configz', [{ field: 'maxPods', rendered: '111', running: '110' }]),
            fake('sysctl', []),
          ],
        },
      });
      expect(verdict).to.deep.equal({
        ok: false,
        reason: 'NotInEffect',
        message: 'not in effect 0s after the apply: kubelet configz maxPods is 110, rendered 111',
      });
    });

    it('a check that cannot ask fails the apply too; all in effect succeeds', async () => {
      const failing = await verifyApply({
        units: [],
        systemd,
        probes: [],
        settleMs: 0,
        signal,
        inEffect: { osc, checks: [fake('kubelet configz', new Error('timed out'))] },
      });
      expect(failing).to.include({ ok: false, reason: 'NotInEffect' });
      expect(failing.message).to.contain('kubelet configz: timed out');
      const ok = await verifyApply({
        units: [],
        systemd,
        probes: [],
        settleMs: 0,
        signal,
        inEffect: { osc, checks: [fake('sysctl', [])] },
      });
      expect(ok.ok).to.equal(true);
    });

    it("a unit or probe that failed says why in the unit's own words", async () => {
      // other.service ran and somebody stopped it: still loaded, with its run's InvocationID
      await systemd.restart('other.service');
      await systemd.stop('other.service');
      const verdict = await verifyApply({
        units: ['kubelet.service', 'other.service'],
        systemd,
        probes: [{ name: 'kubelet', check: () => Promise.reject(new Error('connection refused')) }],
        settleMs: 0,
        signal,
        unitReason: async (u) => (u === 'kubelet.service' ? 'invalid configuration: maxPods' : undefined),
      });
      // other.service is not running: the unit judgement comes first
      expect(verdict).to.include({ ok: false, reason: 'UnitNotActive' });
      const probe = await verifyApply({
        units: ['kubelet.service'],
        systemd,
        probes: [{ name: 'kubelet', check: () => Promise.reject(new Error('connection refused')) }],
        settleMs: 0,
        signal,
        unitReason: async () =>
          'invalid configuration: maxPods (--max-pods) -1 must not be a negative number',
      });
      expect(probe).to.deep.equal({
        ok: false,
        reason: 'HealthCheckFailed',
        message:
          'health check failed 0s after the apply: kubelet: connection refused; kubelet.service: invalid configuration: maxPods (--max-pods) -1 must not be a negative number',
      });
    });

    it("the kubelet's reason is its last klog err=…", () => {
      const journal = [
        'I1202 17:13:46.938961    2029 flags.go:64] FLAG: --register-node="true"',
        'E1202 17:20:01.000000    3001 run.go:72] "command failed" err="failed to validate kubelet configuration, error: invalid configuration: maxPods (--max-pods) -1 must not be a negative number, path: &TypeMeta{Kind:\\"KubeletConfiguration\\"}"',
        'kubelet.service: Main process exited, code=exited, status=1/FAILURE',
      ].join('\n');
      expect(lastErrorOf(journal)).to.equal(
        'failed to validate kubelet configuration, error: invalid configuration: maxPods (--max-pods) -1 must not be a negative number, path: &TypeMeta{Kind:"KubeletConfiguration"}',
      );
      expect(lastErrorOf('started\nsomething failed here\nok')).to.equal('something failed here');
      expect(lastErrorOf('all good')).to.equal(undefined);
    });
  });

  describe('which checks the agent runs', () => {
    const options = (root: string, env: NodeJS.ProcessEnv = {}, nodeIdentity?: string) =>
      ({
        options: { root, env } as unknown as AgentOptions,
        http: { get: failing },
        nodeIdentity,
        nodes: { list: () => [] },
      }) as unknown as Parameters<typeof inEffect>[0];
    const failing = () => Promise.reject(new Error('not asked here'));

    it("on the machine it manages: the kubelet configz, the sysctls, containerd's config dump, and units say why they failed", () => {
      const on = inEffect(options('/'));
      expect(on.inEffectChecks?.map((c) => c.name)).to.deep.equal([
        'kubelet configz',
        'sysctl',
        'containerd config dump',
      ]);
      expect(on.unitReason).to.be.a('function');
    });

    it('with a per-node identity the kubelet is asked through the API server, as that Node', async () => {
      const paths: string[] = [];
      const agent = options('/', {}, 'node-a') as { http: { get: unknown } };
      agent.http.get = async (req: { path: string }) => {
        paths.push(req.path);
        throw new Error('unreachable');
      };
      const configz = inEffect(agent as Parameters<typeof inEffect>[0]).inEffectChecks![0]!;
      const osc = oscWith({ '/var/lib/kubelet/config/kubelet': KUBELET });
      expect(await configz.check(osc, signal)).to.deep.equal([]);
      expect(paths).to.deep.equal(['/api/v1/nodes/node-a/proxy/configz']);
    });

    it('none under another root, or where the environment turns them off (a stand-in kubelet)', () => {
      expect(inEffect(options('/var/tmp/root'))).to.deep.equal({});
      expect(inEffect(options('/', { [IN_EFFECT_CHECKS_ENV]: 'off' }))).to.deep.equal({});
    });
  });
});
