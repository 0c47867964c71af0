// Preloaded into the gateway by bench/alloc-profile.sh (`node --import`): on SIGUSR2 it
// starts V8's sampling heap profiler, keeping the samples of objects already collected
// (so it counts what was allocated, not what is still alive), and on the next SIGUSR2
// writes the profile to $ALLOC_PROFILE. ALLOC_SURVIVORS=1 leaves out what scavenges collected:
// what is left is what lived long enough to be promoted (the cause of mark-compacts).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const session = new Session();
session.connect();
let sampling = false;
process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true;
    session.post('HeapProfiler.enable', () =>
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 2048,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: process.env.ALLOC_SURVIVORS !== '1',
      }),
    );
    return;
  }
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error === null) writeFileSync(process.env.ALLOC_PROFILE, JSON.stringify(result.profile));
  });
});
