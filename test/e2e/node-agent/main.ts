// The node agent as a process, for running the operator by hand against a local control plane:
//   node test/e2e/node-agent/dist/main.js --kubeconfig <path> \
//     --image 'switchboard/engine-socket:dev=node /work/main/engine-pod/dist/pod/main.js' \
//     [--images images.json] [--node-name n] [--namespace ns] [--selector app.kubernetes.io/component=engine] \
//     [--env SWITCHBOARD_NATS_URL=nats://127.0.0.1:4222] [--work-dir dir]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type ImageCommand, startNodeAgent } from './node-agent.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string', default: process.env.KUBECONFIG },
    'node-name': { type: 'string' },
    namespace: { type: 'string' },
    selector: { type: 'string' },
    /** `<image>=<command> [args...]`, split on spaces; repeatable. */
    image: { type: 'string', multiple: true, default: [] },
    /** A JSON file: `{"<image>": {"command": "node", "args": ["..."]}}`. */
    images: { type: 'string' },
    /** `NAME=value`, set on every process over the pod's own env; repeatable. */
    env: { type: 'string', multiple: true, default: [] },
    'work-dir': { type: 'string' },
  },
});

function pair(flag: string, text: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw new Error(`--${flag} ${text}: expected <name>=<value>`);
  return [text.slice(0, at), text.slice(at + 1)];
}

if (!values.kubeconfig) throw new Error('--kubeconfig (or KUBECONFIG) is required');
const images: Record<string, ImageCommand> = values.images ? JSON.parse(readFileSync(values.images, 'utf8')) : {};
for (const flag of values.image) {
  const [image, commandLine] = pair('image', flag);
  const [command, ...args] = commandLine.trim().split(/\s+/);
  images[image] = { command: command!, args };
}

const agent = await startNodeAgent({
  kubeconfigPath: values.kubeconfig,
  nodeName: values['node-name'],
  namespace: values.namespace,
  labelSelector: values.selector,
  images,
  workDir: values['work-dir'],
  envOverrides: Object.fromEntries(values.env.map((flag) => pair('env', flag))),
  log: (line) => console.log(line),
});
console.log(`node agent ${agent.nodeName}: pod logs under ${agent.workDir}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void agent.stop().then(() => process.exit(0));
  });
}
