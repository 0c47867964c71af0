// A collector that answers every OTLP/HTTP export at once with 200 and an empty
// ExportTraceServiceResponse, for measuring what tracing costs the gateway
// (docs/performance.md, "Tracing on and off"):
//   taskset -c 1 node bench/otlp-sink.mjs 18140 &
//   echo OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:18140 > /tmp/otel-on.env
//   bash bench/ab-cpu.sh json 4 7 off=dist on=dist@--env-file=/tmp/otel-on.env
// On SIGINT/SIGTERM it prints how many exports and bytes it took.
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 18140);
let exports = 0;
let bytes = 0;
createServer((request, response) => {
  request.on('data', (chunk) => (bytes += chunk.length));
  request.on('end', () => {
    exports++;
    response.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end();
  });
}).listen(port, '127.0.0.1');
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    console.log(`otlp-sink: ${exports} exports, ${bytes} bytes`);
    process.exit(0);
  });
