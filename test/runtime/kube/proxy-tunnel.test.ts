/**
 * KubeHttp through a kubeconfig's `proxy-url` against local peers: requests go through a CONNECT
 * tunnel (kept alive across requests), the proxy's credentials go into Proxy-Authorization, and a
 * proxy that refuses the tunnel or a proxy URL of another scheme is a clear error. The tunnel to
 * a real API server over TLS is in test/integration/kube-client.test.ts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { KubeHttp } from '../../../runtime/kube/kube-http.js';
import { connectTarget, parseProxyUrl } from '../../../runtime/kube/proxy-tunnel.js';
import { RestConfig } from '../../../runtime/kube/rest-config.js';

interface Tunnel {
  readonly target: string;
  readonly authorization: string | undefined;
}

/** A CONNECT proxy that records its tunnels, or answers `refuse` instead of opening one. */
async function startProxy(refuse?: string): Promise<{ server: Server; url: string; tunnels: Tunnel[] }> {
  const tunnels: Tunnel[] = [];
  const sockets: Socket[] = [];
  const server = createServer();
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    sockets.push(socket);
    tunnels.push({ target: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    if (refuse) {
      socket.end(`HTTP/1.1 ${refuse}\r\n\r\n`);
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  server.on('close', () => {
    for (const s of sockets) s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `127.0.0.1:${(server.address() as AddressInfo).port}`, tunnels };
}

describe('runtime/kube: KubeHttp through a proxy-url', () => {
  let api: Server;
  let apiUrl: string;
  const closers: (() => Promise<unknown>)[] = [];

  before(async () => {
    api = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"metadata":{"name":"default"}}');
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  after(async () => {
    api.closeAllConnections();
    await new Promise((r) => api.close(r));
  });

  const httpVia = (proxyUrl: string) => {
    const http = new KubeHttp(new RestConfig({ server: apiUrl, proxyUrl }));
    closers.push(() => http.close());
    return http;
  };
  const proxyOf = async (refuse?: string) => {
    const proxy = await startProxy(refuse);
    closers.push(() => new Promise((r) => proxy.server.close(r)));
    return proxy;
  };

  it('sends every request through one kept-alive CONNECT tunnel to the server', async () => {
    const proxy = await proxyOf();
    const http = httpVia(`http://${proxy.url}`);
    for (let i = 0; i < 3; i++)
      expect(
        await http.getJson<{ metadata: { name: string } }>({ path: '/api/v1/namespaces/default' }),
      ).to.have.nested.property('metadata.name', 'default');
    expect(proxy.tunnels).to.deep.equal([{ target: new URL(apiUrl).host, authorization: undefined }]);
  });

  it("sends the proxy-url's user and password as Proxy-Authorization, not to the API server", async () => {
    const proxy = await proxyOf();
    await httpVia(`http://ops:p%40ss@${proxy.url}`).getJson({ path: '/api' });
    expect(proxy.tunnels.map((t) => t.authorization)).to.deep.equal([
      `Basic ${Buffer.from('ops:p@ss').toString('base64')}`,
    ]);
  });

  it('fails with the proxy and its answer when the proxy refuses the tunnel', async () => {
    const proxy = await proxyOf('407 Proxy Authentication Required');
    const error = await httpVia(`http://${proxy.url}`)
      .getJson({ path: '/api' })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).to.equal(
      `proxy ${proxy.url}: CONNECT ${new URL(apiUrl).host} answered 407 Proxy Authentication Required`,
    );
  });

  it('fails naming the proxy when nothing listens there', async () => {
    const proxy = await startProxy();
    await new Promise((r) => proxy.server.close(r));
    const error = await httpVia(`http://${proxy.url}`)
      .getJson({ path: '/api' })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).to.match(new RegExp(`^proxy ${proxy.url}: .*ECONNREFUSED`));
  });

  it('rejects a proxy-url that is not http or https when the client is made', () => {
    expect(
      () => new KubeHttp(new RestConfig({ server: apiUrl, proxyUrl: 'socks5://127.0.0.1:1080' })),
    ).to.throw('proxy-url socks5://127.0.0.1:1080: only http and https proxies are supported');
    expect(() => parseProxyUrl('not a url')).to.throw('proxy-url not a url: not a URL');
  });

  it('names an IPv6 target in brackets, as CONNECT needs', () => {
    expect(connectTarget('::1', 6443)).to.equal('[::1]:6443');
    expect(connectTarget('[::1]', 6443)).to.equal('[::1]:6443');
    expect(connectTarget('api.example.com', 443)).to.equal('api.example.com:443');
  });
});
