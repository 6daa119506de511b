import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';

/** The page Chromium gets for every address: WhatsApp Web itself needs the internet, which no bench may reach. */
const PAGE = '<!doctype html><title>WhatsApp</title><p>served on loopback by the engine-pods benchmark</p>';

/**
 * The whole web, as a WEBJS engine pod's Chromium sees it during the benchmark: a proxy on
 * loopback that answers every CONNECT itself, ends the TLS with a certificate made here, and
 * serves one page. Chromium is started through a wrapper that adds `--proxy-server` for it,
 * `--host-resolver-rules` that resolve no name at all (so not even a DNS query leaves), and
 * `--ignore-certificate-errors` for the certificate. Every host Chromium asked for is recorded,
 * so the benchmark can print what it tried to reach.
 */
export class LoopbackWeb {
  readonly hosts: string[] = [];
  /** When the first page was served (ms, performance.now()): the browser is up and loading. */
  firstPageAt: number | null = null;

  private constructor(
    private readonly proxy: Server,
    readonly chromiumWrapper: string,
  ) {}

  static async start(dir: string, chromium: string): Promise<LoopbackWeb> {
    const key = join(dir, 'web.key');
    const cert = join(dir, 'web.crt');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=loopback'], {
      stdio: 'ignore',
    });
    let web: LoopbackWeb | null = null;
    const pages = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_request, response) => {
      if (web && web.firstPageAt === null) web.firstPageAt = performance.now();
      response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    const proxy = createHttpServer((request, response) => {
      web?.hosts.push(request.headers.host ?? '');
      response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    proxy.on('connect', (request, socket: Socket, head: Buffer) => {
      web?.hosts.push(request.url ?? '');
      if (head.length > 0) socket.unshift(head);
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      pages.emit('connection', socket);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as AddressInfo).port;
    const wrapper = join(dir, 'chromium');
    writeFileSync(
      wrapper,
      `#!/bin/sh\nexec ${chromium} "$@" --proxy-server=http://127.0.0.1:${port} ` +
        `'--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1' --ignore-certificate-errors\n`,
    );
    chmodSync(wrapper, 0o755);
    web = new LoopbackWeb(proxy, wrapper);
    return web;
  }

  async close(): Promise<void> {
    this.proxy.closeAllConnections();
    await new Promise((resolve) => this.proxy.close(resolve));
  }
}
