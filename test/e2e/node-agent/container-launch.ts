import type { V1Container, V1EnvVar, V1EnvVarSource, V1Pod, V1Probe } from '@kubernetes/client-node';
import type { PodPorts } from './pod-ports.js';
import type { ProbeCheck, ProbeTiming } from './readiness-probe.js';

/** What an image means on this host: the process that stands in for its entrypoint. */
export interface ImageCommand {
  command: string;
  /** The image's default arguments (its CMD); a container's `args` replace them. */
  args?: string[];
  /** The image's working directory (its WORKDIR); default: the pod's directory under the agent's work dir. */
  workingDir?: string;
}

/**
 * The env var through which each container learns the host port that stands in for its health
 * port: its readiness probe's port, else its first declared port, else a port of its own.
 * It overrides a value the pod spec gives.
 */
export const HEALTH_PORT_ENV = 'SWITCHBOARD_HEALTH_PORT';

export const POD_IP = '127.0.0.1';
export const HOST_IP = '127.0.0.1';

export interface ContainerLaunch {
  command: string;
  args: string[];
  cwd: string | undefined;
  env: Record<string, string>;
  readiness: { check: ProbeCheck; timing: ProbeTiming } | undefined;
}

/** Why a container cannot start, as kubelet names it in `state.waiting.reason`. */
export class LaunchError extends Error {
  constructor(
    readonly reason: 'ErrImagePull' | 'CreateContainerConfigError',
    message: string,
  ) {
    super(message);
  }
}

/** Reads of the objects env vars may refer to; undefined when the object does not exist. */
export interface ConfigSource {
  configMap(namespace: string, name: string): Promise<Record<string, string> | undefined>;
  secret(namespace: string, name: string): Promise<Record<string, string> | undefined>;
}

export interface LaunchContext {
  images: Record<string, ImageCommand>;
  ports: PodPorts;
  config: ConfigSource;
  nodeName: string;
  /** Added last, over the pod's own env. */
  envOverrides: Record<string, string>;
  probePeriodMs: number;
}

export async function resolveLaunch(pod: V1Pod, container: V1Container, context: LaunchContext): Promise<ContainerLaunch> {
  const image = context.images[container.image ?? ''];
  if (image === undefined) {
    const known = Object.keys(context.images).join(', ') || 'none';
    throw new LaunchError(
      'ErrImagePull',
      `the node agent has no command for image "${container.image}" (container ${container.name}); it knows: ${known}`,
    );
  }
  // Kubernetes semantics: `command` replaces the entrypoint and drops the image's arguments.
  const [command, args] = container.command?.length
    ? [container.command[0]!, [...container.command.slice(1), ...(container.args ?? [])]]
    : [image.command, container.args ?? image.args ?? []];

  const readinessPort = container.readinessProbe ? probePort(container.readinessProbe, container) : undefined;
  const healthPort =
    readinessPort !== undefined
      ? await context.ports.forContainerPort(readinessPort)
      : container.ports?.[0]
        ? await context.ports.forContainerPort(container.ports[0].containerPort)
        : await context.ports.forContainer(container.name);
  for (const port of container.ports ?? []) await context.ports.forContainerPort(port.containerPort);

  const env: Record<string, string> = { ...hostEnv(), HOSTNAME: pod.metadata?.name ?? '' };
  Object.assign(env, await envFromSources(pod, container, context.config));
  for (const variable of container.env ?? []) env[variable.name] = await envValue(pod, container, variable, context);
  env[HEALTH_PORT_ENV] = String(healthPort);
  Object.assign(env, context.envOverrides);

  return {
    command,
    args,
    cwd: image.workingDir,
    env,
    readiness: container.readinessProbe && (await readinessCheck(container.readinessProbe, container, context)),
  };
}

/** Only what a process needs to find its interpreter and caches; a container sees no host env. */
export function hostEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

async function envFromSources(pod: V1Pod, container: V1Container, config: ConfigSource): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  const namespace = pod.metadata?.namespace ?? 'default';
  for (const source of container.envFrom ?? []) {
    const ref = source.configMapRef ?? source.secretRef;
    if (!ref) continue;
    const kind = source.configMapRef ? 'configmap' : 'secret';
    const name = ref.name ?? '';
    const data = await (kind === 'configmap' ? config.configMap(namespace, name) : config.secret(namespace, name));
    if (data === undefined && !ref.optional) {
      throw new LaunchError('CreateContainerConfigError', `${kind} "${ref.name}" not found (envFrom of container ${container.name})`);
    }
    for (const [key, value] of Object.entries(data ?? {})) env[`${source.prefix ?? ''}${key}`] = value;
  }
  return env;
}

async function envValue(pod: V1Pod, container: V1Container, variable: V1EnvVar, context: LaunchContext): Promise<string> {
  if (!variable.valueFrom) return variable.value ?? '';
  const where = `env ${variable.name} of container ${container.name}`;
  const value = await valueFrom(pod, variable.valueFrom, context);
  if (value === null) throw new LaunchError('CreateContainerConfigError', `${where}: ${describeSource(variable.valueFrom)} not found`);
  if (value === undefined) {
    throw new LaunchError('CreateContainerConfigError', `${where}: the node agent does not support ${describeSource(variable.valueFrom)}`);
  }
  return value;
}

/** The value; '' for a missing optional key; null for a missing required one; undefined when unsupported. */
async function valueFrom(pod: V1Pod, source: V1EnvVarSource, context: LaunchContext): Promise<string | null | undefined> {
  const namespace = pod.metadata?.namespace ?? 'default';
  if (source.fieldRef) return fieldValue(pod, source.fieldRef.fieldPath, context.nodeName);
  const ref = source.configMapKeyRef ?? source.secretKeyRef;
  if (!ref) return undefined;
  const name = ref.name ?? '';
  const data = await (source.configMapKeyRef ? context.config.configMap(namespace, name) : context.config.secret(namespace, name));
  return data?.[ref.key] ?? (ref.optional ? '' : null);
}

function fieldValue(pod: V1Pod, path: string, nodeName: string): string | undefined {
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (keyed) return pod.metadata?.[keyed[1] as 'labels' | 'annotations']?.[keyed[2]!] ?? '';
  const fields: Record<string, string | undefined> = {
    'metadata.name': pod.metadata?.name,
    'metadata.namespace': pod.metadata?.namespace,
    'metadata.uid': pod.metadata?.uid,
    'spec.nodeName': nodeName,
    'spec.serviceAccountName': pod.spec?.serviceAccountName ?? '',
    'status.podIP': POD_IP,
    'status.podIPs': POD_IP,
    'status.hostIP': HOST_IP,
    'status.hostIPs': HOST_IP,
  };
  return fields[path];
}

function describeSource(source: V1EnvVarSource): string {
  if (source.fieldRef) return `fieldRef ${source.fieldRef.fieldPath}`;
  if (source.configMapKeyRef) return `key "${source.configMapKeyRef.key}" of configmap "${source.configMapKeyRef.name}"`;
  if (source.secretKeyRef) return `key "${source.secretKeyRef.key}" of secret "${source.secretKeyRef.name}"`;
  return Object.keys(source).join(', ');
}

/** The container port a probe targets (a number, or the name of one of the container's ports). */
function probePort(probe: V1Probe, container: V1Container): number | undefined {
  const port = probe.httpGet?.port ?? probe.tcpSocket?.port;
  if (port === undefined) return undefined;
  if (typeof port === 'number' || /^\d+$/.test(port)) return Number(port);
  return container.ports?.find((candidate) => candidate.name === port)?.containerPort;
}

async function readinessCheck(probe: V1Probe, container: V1Container, context: LaunchContext): Promise<{ check: ProbeCheck; timing: ProbeTiming }> {
  const timing: ProbeTiming = {
    initialDelayMs: (probe.initialDelaySeconds ?? 0) * 1000,
    // The API server fills in periodSeconds (10 s); tests want Ready sooner.
    periodMs: context.probePeriodMs,
    timeoutMs: (probe.timeoutSeconds ?? 1) * 1000,
    successThreshold: probe.successThreshold ?? 1,
    failureThreshold: probe.failureThreshold ?? 3,
  };
  const port = probePort(probe, container);
  const unsupported = (reason: string): { check: ProbeCheck; timing: ProbeTiming } => ({ check: { kind: 'unsupported', reason }, timing });
  if (probe.httpGet) {
    if (port === undefined) return unsupported(`readiness probe port "${probe.httpGet.port}" is not a port of container ${container.name}`);
    if (probe.httpGet.scheme === 'HTTPS') return unsupported('the node agent does not run HTTPS probes');
    const headers = Object.fromEntries((probe.httpGet.httpHeaders ?? []).map((header) => [header.name, header.value]));
    return { check: { kind: 'httpGet', port: await context.ports.forContainerPort(port), path: probe.httpGet.path ?? '/', headers }, timing };
  }
  if (probe.tcpSocket) {
    if (port === undefined) return unsupported(`readiness probe port "${probe.tcpSocket.port}" is not a port of container ${container.name}`);
    return { check: { kind: 'tcpSocket', port: await context.ports.forContainerPort(port) }, timing };
  }
  return unsupported('the node agent runs only httpGet and tcpSocket readiness probes');
}
