// The session benchmark's processes: simulated nodes with prefix caches (`switchyard
// simulate`), gateway instances (`switchyard serve`, the built dist, same configuration,
// memory store each) and nginx balancing the gateways round-robin. Every process is a
// child of this one; stop() ends them all, and so does this process's exit.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The bench's one key (a bench secret, not a real one). */
export const BENCH_KEY = 'sk-bench-sessions-0123456789abcdef';

const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
// Interrupted, the bench still takes its processes down (through 'exit').
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));

/** A port free right now on 127.0.0.1. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function start(command, args, logFile, env = {}) {
  const log = createWriteStream(logFile);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function waitForHttp(url, headers = {}, child = undefined, logFile = '') {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child !== undefined && child.exitCode !== null) {
      throw new Error(`session bench: ${url} exited: ${readFileSync(logFile, 'utf8').slice(0, 500)}`);
    }
    try {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (response.status < 500) return;
    } catch {
      // not up yet
    }
    await sleep(50);
  }
  throw new Error(`session bench: ${url} did not come up`);
}

/** CPU seconds (user + system) a running child has used, from /proc; 0 once it is gone. */
function cpuSeconds(child) {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

/** The gateway configuration every instance shares; `model` is the model entry's extra YAML lines. */
function gatewayYaml(nodes, routing) {
  const nodeLines = nodes
    .map(
      (node) =>
        `  - { id: ${node.id}, provider: openai, base_url: "${node.baseUrl}", max_concurrency: 256${node.extra ?? ''} }`,
    )
    .join('\n');
  return `listen: { host: 127.0.0.1, port: "\${BENCH_GATEWAY_PORT}" }
store: memory
log_level: info
limits: { key: { rpm: 100000000 }, ip: { rpm: 100000000 } }
http:
  max_body_bytes_in_flight: 1073741824
  max_body_bytes_in_flight_per_key: 536870912
  max_body_bytes_in_flight_per_account: 536870912
  max_body_bytes_in_flight_per_ip: 536870912
nodes:
${nodeLines}
models:
  - id: agent
${routing.map((line) => `    ${line}`).join('\n')}
    routes: [${nodes.map((node) => `{ node: ${node.id} }`).join(', ')}]
keys:
  - { key: "${BENCH_KEY}", name: bench }
`;
}

/**
 * Starts the cluster: `nodeCount` simulated nodes (`simulateArgs` their flags), `gateways`
 * instances of dist/cli.js serve with one configuration (`routing`: the model's routing
 * lines; `nodeExtra`: YAML members added to each node entry), nginx round-robin in front.
 */
export async function startCluster({ root, workDir, nodeCount, gateways, simulateArgs, routing, nodeExtra = '' }) {
  mkdirSync(workDir, { recursive: true });
  const cli = join(root, 'dist', 'cli.js');
  const nodes = [];
  for (let index = 1; index <= nodeCount; index++) {
    const port = await freePort();
    const id = `node-${index}`;
    const child = start(
      process.execPath,
      [cli, 'simulate', '--port', String(port), ...simulateArgs],
      join(workDir, `${id}.log`),
    );
    nodes.push({
      id,
      port,
      child,
      baseUrl: `http://127.0.0.1:${port}/v1`,
      extra: nodeExtra.replaceAll('{port}', port),
    });
  }
  await Promise.all(nodes.map((node) => waitForHttp(`${node.baseUrl}/models`)));
  const configFile = join(workDir, 'gateway.yaml');
  writeFileSync(configFile, gatewayYaml(nodes, routing));
  const instances = [];
  for (let index = 1; index <= gateways; index++) {
    const port = await freePort();
    const logFile = join(workDir, `gateway-${index}.log`);
    const child = start(process.execPath, [cli, 'serve', '--config', configFile], logFile, {
      BENCH_GATEWAY_PORT: String(port),
    });
    instances.push({ port, child, logFile });
  }
  await Promise.all(
    instances.map((instance) =>
      waitForHttp(
        `http://127.0.0.1:${instance.port}/v1/models`,
        { authorization: `Bearer ${BENCH_KEY}` },
        instance.child,
        instance.logFile,
      ),
    ),
  );
  const balancerPort = await freePort();
  mkdirSync(join(workDir, 'nginx-tmp'), { recursive: true });
  const nginxConf = join(workDir, 'nginx.conf');
  writeFileSync(nginxConf, nginxConfig(workDir, balancerPort, instances));
  const nginx = start(
    process.env.NGINX ?? 'nginx',
    ['-p', workDir, '-c', nginxConf, '-g', 'daemon off;'],
    join(workDir, 'nginx.log'),
  );
  await waitForHttp(`http://127.0.0.1:${balancerPort}/v1/models`, { authorization: `Bearer ${BENCH_KEY}` });
  return {
    nodes,
    instances,
    baseUrl: `http://127.0.0.1:${balancerPort}/v1`,
    /** Kills one simulated node at once (SIGKILL: no goodbye, connections reset). */
    kill(id) {
      nodes.find((node) => node.id === id)?.child.kill('SIGKILL');
    },
    /** CPU seconds used so far by the nodes, the gateways and nginx (a killed node counts 0). */
    cpu() {
      const sum = (list) => list.reduce((total, child) => total + cpuSeconds(child), 0);
      return {
        nodes: sum(nodes.map((entry) => entry.child)),
        gateways: sum(instances.map((entry) => entry.child)),
        nginx: cpuSeconds(nginx),
      };
    },
    async stop() {
      await stopChild(nginx);
      await Promise.all(instances.map((instance) => stopChild(instance.child)));
      await Promise.all(nodes.map((node) => stopChild(node.child)));
    },
  };
}

function nginxConfig(workDir, port, instances) {
  const temp = join(workDir, 'nginx-tmp');
  return `worker_processes 1;
pid ${join(workDir, 'nginx.pid')};
error_log ${join(workDir, 'nginx-error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
  client_max_body_size 16m;
  client_body_buffer_size 2m;
  upstream gateways {
${instances.map((instance) => `    server 127.0.0.1:${instance.port};`).join('\n')}
    keepalive 256;
  }
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location / {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 300s;
    }
  }
}
`;
}
