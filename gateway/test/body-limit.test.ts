import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, type TestGateway } from './support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

/**
 * A client in a process of its own, as every real one is: it posts an 8 MB body several times and
 * prints what it got each time, an HTTP status or the error of its socket.
 */
const CLIENT = `
const [url, key] = process.argv.slice(1);
const body = JSON.stringify({ name: 'big', config: { metadata: { x: 'y'.repeat(8_000_000) } } });
const outcomes = [];
for (let round = 0; round < 10; round++) {
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body });
    outcomes.push((await res.json()).statusCode);
  } catch (error) {
    outcomes.push(String(error.cause?.code ?? error.message));
  }
}
console.log(JSON.stringify(outcomes));
`;

describe('a body over the limit', () => {
  // Closing the connection while the client is still sending resets its socket before it reads
  // the answer (EPIPE); with 8 MB bodies, most rounds showed that.
  it('gets its 413 answer, however much of the body is still on its way', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', CLIENT, `${gw.url}/api/sessions`, ADMIN_KEY]);
    expect(JSON.parse(stdout)).toEqual(Array(10).fill(413));
  });
});
