// Addresses that stand, on this node, for what pods reach in a real cluster: a public address of
// the internet (198.51.100.7, TEST-NET-2, outside every range the chart's egress excepts), the
// cloud metadata endpoint (169.254.169.254) and one address in each other private or shared range
// the chart excepts. They live in a network namespace of their own, attached to the node's bridge
// by a veth pair, where a listener answers on each port the tests probe. The host routes the
// pods' traffic to them out the bridge by a table of its own (2269), looked up for the pod range
// only, so the host's own traffic (and a metadata endpoint this machine may really have) is
// untouched; the namespace answers through the host (its only route), so both ways are routed by
// the node, where kube-router's rules hold them as any pod's traffic. A probe then tells a
// policy's refusal from an address nothing answers: a pod no policy selects reaches every one.
// Why not simpler: a `local` route on the host would need transparent sockets to answer from an
// address the host does not have (node cannot open one), and a namespace behind its own link is
// cut off by the node's guard, which forwards a pod's packets back out the bridge only.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { type AddressInfo, connect, createServer, type Server } from 'node:net';
import type { Reach } from './reach.js';

export const INTERNET = '198.51.100.7';
export const METADATA = '169.254.169.254';
/** One address in each IPv4 range of the chart's except-lists but 10.0.0.0/8 (the pods' and host's). */
export const PRIVATE = ['172.16.0.7', '192.168.0.7', '100.64.0.7'] as const;
/** A port no rule of the chart names; the stand-ins answer on it beside 80, 443 and 5222. */
export const UNNAMED_PORT = 7077;
const ADDRESSES = [INTERNET, METADATA, ...PRIVATE];
const PORTS = [80, 443, 5222, UNNAMED_PORT];
const TABLE = '2269';
const NAMESPACE = 'sb-standins';
const LINK = 'sbstandin0';

let listener: ChildProcess | null = null;

function ip(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => execFile('ip', args, (error, _stdout, stderr) => done({ code: error ? 1 : 0, stderr })));
}

async function mustIp(args: readonly string[]): Promise<void> {
  const result = await ip(args);
  if (result.code !== 0) throw new Error(`ip ${args.join(' ')}: ${result.stderr}`);
}

/** The bridge that holds `hostAddress` (the node's). */
async function bridgeOf(hostAddress: string): Promise<string> {
  const listing = await new Promise<string>((done, fail) =>
    execFile('ip', ['-j', '-4', 'addr', 'show'], (error, stdout) => (error ? fail(new Error(`ip addr show: ${error.message}`)) : done(stdout))),
  );
  const links = JSON.parse(listing) as { ifname: string; addr_info: { local: string }[] }[];
  const link = links.find((l) => l.addr_info.some((a) => a.local === hostAddress));
  if (!link) throw new Error(`no interface holds ${hostAddress}`);
  return link.ifname;
}

/** The namespace, its addresses and listener, the host's routes and rule (none left from an earlier run first). */
export async function addStandIns(podCidr: string, hostAddress: string): Promise<void> {
  await removeStandIns(podCidr);
  const bridge = await bridgeOf(hostAddress);
  await mustIp(['netns', 'add', NAMESPACE]);
  await mustIp(['link', 'add', LINK, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', NAMESPACE]);
  await mustIp(['link', 'set', LINK, 'master', bridge, 'up']);
  const inside = (args: readonly string[]) => mustIp(['-n', NAMESPACE, ...args]);
  await inside(['link', 'set', 'lo', 'up']);
  await inside(['link', 'set', 'eth0', 'up']);
  // Every answer goes through the node (no route to the pods but by it).
  await inside(['route', 'add', `${hostAddress}/32`, 'dev', 'eth0']);
  await inside(['route', 'add', 'default', 'via', hostAddress, 'dev', 'eth0', 'onlink']);
  for (const address of ADDRESSES) {
    await inside(['addr', 'add', `${address}/32`, 'dev', 'lo']);
    await mustIp(['route', 'add', `${address}/32`, 'dev', bridge, 'table', TABLE]);
  }
  await mustIp(['rule', 'add', 'from', podCidr, 'lookup', TABLE, 'priority', TABLE]);

  const script = `const net = require('net'); let up = 0;
for (const port of ${JSON.stringify(PORTS)}) net.createServer((s) => s.end()).listen(port, '0.0.0.0', () => { if (++up === ${PORTS.length}) console.log('ready'); });`;
  listener = spawn('ip', ['netns', 'exec', NAMESPACE, process.execPath, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const child = listener;
  await new Promise<void>((done, fail) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && done());
    child.once('exit', (code) => fail(new Error(`the stand-ins' listener exited ${code}`)));
  });
}

export async function removeStandIns(podCidr: string): Promise<void> {
  listener?.kill();
  listener = null;
  while ((await ip(['rule', 'del', 'from', podCidr, 'lookup', TABLE, 'priority', TABLE])).code === 0);
  await ip(['route', 'flush', 'table', TABLE]);
  await ip(['link', 'del', LINK]);
  await ip(['netns', 'del', NAMESPACE]);
}

/** A TCP server on `host` (port 0: any free one) that closes what it accepts. */
export async function listen(host: string, port = 0): Promise<Server & { port: number }> {
  const server = createServer((socket) => socket.end());
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, done);
  });
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}

/** From the host itself, a TCP connection to host:port (the control for a pod's own listener). */
export function hostReach(host: string, port: number): Promise<Reach> {
  return new Promise((done) => {
    const socket = connect(port, host);
    socket.setTimeout(3000, () => (socket.destroy(), done('timeout')));
    socket.once('connect', () => (socket.destroy(), done('open')));
    socket.once('error', () => done('refused'));
  });
}
