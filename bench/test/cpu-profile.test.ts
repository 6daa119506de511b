import { describe, expect, it } from 'vitest';
import { costsReport, type CpuProfile, topCosts } from '../src/cpu-profile.js';

const frame = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 9 } });

describe('topCosts', () => {
  it('sums self time by package, node module or workspace file and by function, as shares of the busy samples', () => {
    const profile: CpuProfile = {
      nodes: [
        frame(1, '(root)', ''),
        frame(2, '(idle)', ''),
        frame(3, 'parse', 'file:///repo/node_modules/.pnpm/zod@4/node_modules/zod/v4/core/schemas.js'),
        frame(4, 'check', 'file:///repo/node_modules/.pnpm/zod@4/node_modules/zod/v4/core/checks.js'),
        frame(5, 'emit', 'file:///repo/engine-pod/dist/engine-host.js'),
        frame(6, 'writeHead', 'node:_http_server'),
        frame(7, '(garbage collector)', ''),
      ],
      // 4 idle, then 6 busy: zod 3, engine-host 1, node:_http_server 1, the collector 1.
      samples: [2, 2, 2, 2, 3, 3, 4, 5, 6, 7],
      timeDeltas: Array.from({ length: 10 }, () => 200),
    };
    const costs = topCosts(profile);
    expect(costs.idle).toBeCloseTo(0.4);
    expect(costs.gc).toBeCloseTo(1 / 6);
    expect(costs.byPlace[0]).toEqual({ name: 'zod', share: 0.5 });
    expect(costs.byPlace.map((c) => c.name)).toEqual(expect.arrayContaining(['engine-pod/engine-host', 'node:_http_server', '(garbage collector)']));
    expect(costs.byFunction[0]!.name).toBe('parse zod:10');
    expect(costs.byFunction[0]!.share).toBeCloseTo(2 / 6);
  });
});

describe('costsReport', () => {
  it('prints the idle and collector shares and the top three costs by place and by function', () => {
    const costs = {
      byPlace: [
        { name: 'zod', share: 0.5 },
        { name: 'fastify', share: 0.25 },
        { name: 'pino', share: 0.125 },
        { name: 'nats', share: 0.0625 },
      ],
      byFunction: [{ name: 'parse zod:10', share: 0.3 }],
      idle: 0.4,
      gc: 0.05,
    };
    expect(costsReport("sendText's", 'one more run', costs).split('\n')).toEqual([
      "sendText's CPU profile (one more run, main thread, 40.0 % of it idle), top costs by self time, as shares of the busy time (garbage collection 5.0 %):",
      '  by place: zod 50.0 %, fastify 25.0 %, pino 12.5 %',
      '  by function: parse zod:10 30.0 %',
    ]);
  });
});
