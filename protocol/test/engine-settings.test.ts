import { describe, expect, it } from 'vitest';
import { ProxyConfig } from '../src/index.js';

describe('config.proxy.server', () => {
  it('takes host:port and http(s)://host:port with a port from 1 to 65535', () => {
    for (const server of ['localhost:3128', 'http://proxy.example:1', 'https://10.0.0.1:65535/']) {
      expect(ProxyConfig.safeParse({ server }).success, server).toBe(true);
    }
  });

  it('refuses a port no URL takes, naming the range (a fuzzer found 75430 reached the address check and answered 500)', () => {
    for (const server of ['https://a1W0J:75430', 'proxy:65536', 'proxy:0']) {
      const parsed = ProxyConfig.safeParse({ server });
      expect(parsed.success, server).toBe(false);
      expect(
        parsed.error?.issues.map((issue) => issue.message),
        server,
      ).toContain('the port must be 1 to 65535');
    }
  });
});
