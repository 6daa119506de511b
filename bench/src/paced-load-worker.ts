import autocannon from 'autocannon';

/**
 * Child process of `paced-load.ts`: autocannon through its API, which (unlike its command line)
 * takes a list of requests, so one paced load can be spread over several sessions' paths.
 * Options come as JSON in argv[2]; the result goes to stdout as JSON.
 */
const options = JSON.parse(process.argv[2]!) as {
  url: string;
  paths: string[];
  headers: Record<string, string>;
  body: string;
  rate: number;
  seconds: number;
  connections: number;
};

const result = await autocannon({
  url: options.url,
  connections: options.connections,
  duration: options.seconds,
  overallRate: options.rate,
  requests: options.paths.map((path) => ({ method: 'POST' as const, path, headers: options.headers, body: options.body })),
});
process.stdout.write(JSON.stringify({ requestsPerSecond: result.requests.average, non2xx: result.non2xx, errors: result.errors }));
