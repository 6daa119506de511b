import { createServer } from 'node:net';

/**
 * Every pod here shares the host's network, so each container port a pod uses gets a free host
 * port of its own, kept for the pod's whole life (restarts included). Containers of one pod share
 * the mapping, as they share a network namespace in a real cluster.
 */
export class PodPorts {
  readonly #hostPorts = new Map<string, Promise<number>>();
  readonly #resolved: Record<string, number> = {};

  /** The host port standing in for `containerPort` in this pod. */
  forContainerPort(containerPort: number): Promise<number> {
    return this.#memo(String(containerPort));
  }

  /** A host port for a container that names no port at all, so it still gets one of its own. */
  forContainer(containerName: string): Promise<number> {
    return this.#memo(`container ${containerName}`);
  }

  /** `{"8080": 41234, ...}`: container port to host port, for tests that talk to a pod. */
  mapping(): Record<string, number> {
    return { ...this.#resolved };
  }

  #memo(key: string): Promise<number> {
    let port = this.#hostPorts.get(key);
    if (port === undefined) {
      port = freeHostPort().then((hostPort) => {
        if (/^\d+$/.test(key)) this.#resolved[key] = hostPort;
        return hostPort;
      });
      this.#hostPorts.set(key, port);
    }
    return port;
  }
}

/** Ports handed out by this process: the kernel may offer a just-closed port again. */
const handedOut = new Set<number>();

async function freeHostPort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
